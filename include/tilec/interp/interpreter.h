// The reference interpreter: executes an unlowered PrimFunc on host memory exactly as
// docs/semantics.md defines it (blocks of T.Kernel run one after another, every loop
// kind runs serially, tile operations act on whole tiles, every arithmetic result is
// rounded to its dtype). Slow is acceptable, wrong is not: every backend's end-to-end
// test compares against it. Bad arguments, out-of-range accesses outside T.copy and
// reads of an allocation's element before any write throw IRError naming the
// argument or buffer, the index and the place in the kernel.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/ir/tensor.h"

#include <atomic>
#include <map>
#include <memory>
#include <variant>

namespace tilec::ir {

// One argument per PrimFunc parameter, in parameter order: a tensor for a buffer
// parameter, a number for a scalar one (converted to the parameter's dtype).
using ArgValue = std::variant<TensorView, int64_t, double>;

// How far a run has got, read from another thread while it runs (a progress bar): the
// blocks of its T.Kernel launches done, and the blocks of the launches started so far
// (a function's later launches add theirs when they start).
struct InterpretProgress {
  std::atomic<int64_t> blocks_done{0};
  std::atomic<int64_t> blocks_total{0};
  std::atomic<int64_t> kernels_started{0};
};

// Resolves variables and buffers to slots once, so run() does no name lookups per
// element. Construction throws IRError on IR the interpreter cannot execute (a name
// used outside its scope, a nested T.Kernel, a lowered launch, vector dtypes).
class Interpreter {
 public:
  explicit Interpreter(const PrimFunc& func);
  ~Interpreter();
  Interpreter(Interpreter&&) noexcept;
  Interpreter& operator=(Interpreter&&) noexcept;

  // Symbolic dims are bound from the tensor shapes; a shape, dtype or count that does
  // not match throws IRError naming the argument.
  void run(const std::vector<ArgValue>& args, InterpretProgress* progress = nullptr) const;

  struct Program;

 private:
  std::unique_ptr<Program> program_;
};

void interpret(const PrimFunc& func, const std::vector<ArgValue>& args,
               InterpretProgress* progress = nullptr);

// Random arguments for `func`: tensors for buffer parameters (dims from their
// constants or `values` by symbolic name), scalars from `values` by name. Tensors the
// function writes are zero-filled, the rest filled by fill_random(seed + position),
// except integer tensors whose elements the function reads inside an index of
// another access (`A[offsets[i]]`): those get values in [0, n), n the smallest
// extent of a dimension they index (fill_random_indices), so random data stays in
// range.
// A scalar parameter given no value takes its default (tilec/ir/param_default.h).
// Throws IRError naming a missing symbolic dim or scalar and listing what is needed.
struct RandomArgs {
  std::vector<HostTensor> tensors;  // one per buffer parameter, in order
  std::vector<ArgValue> args;       // ready for interpret(); views into `tensors`
  std::vector<bool> written;        // per buffer parameter: written by the function
};
RandomArgs make_random_args(const PrimFunc& func, const std::map<std::string, int64_t>& values,
                            uint64_t seed);

}  // namespace tilec::ir
