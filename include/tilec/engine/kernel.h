// Kernel: what tilec::compile returns — lowered IR, generated sources, the BackendContext,
// cache facts, and calls. A cheap, copyable, immutable handle that keeps the code loaded;
// the function name is checked here and every argument by the generated host entry, so
// bad input throws (never crashes) with a message naming the argument.
#pragma once

#include "tilec/backend/module.h"
#include "tilec/ir/function.h"
#include "tilec/ir/tensor.h"
#include "tilec/runtime/abi.h"

#include <dlpack/dlpack.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tilec {

struct KernelState;

// One argument in a parameter's place: a tensor view (dtype and shape given) or a scalar.
using KernelArg = std::variant<ir::TensorView, int64_t, double>;

// A raw tensor for call_raw: the dtype is taken from the function's parameter.
struct RawTensor {
  void* data;
  std::vector<int64_t> shape;
};
using RawArg = std::variant<RawTensor, int64_t, double>;

// How one call runs. `stream`: the device stream (a CUstream for cuda) the call's copies
// and launch are ordered on; the call returns once the launch is queued when every
// tensor is already in device memory (DLPack kDLCUDA), else when the host tensors are
// copied back. nullptr: the default stream, and the call returns when the kernel is done.
// A stream for a kernel without a device (the CPU) or one without streams (opencl)
// throws.
struct CallOptions {
  void* stream = nullptr;
};

class Kernel {
 public:
  explicit Kernel(std::shared_ptr<const KernelState> state);

  const ir::IRModule& lowered() const;  // host and device functions after lowering
  const std::string& host_source() const;
  const std::string& device_source() const;
  const backend::BackendContext& context() const;
  const std::string& execution_backend() const;  // the execution backend's name
  bool cache_hit() const;                        // loaded from the kernel cache
  double compile_ms() const;                     // wall time of compile()
  const std::string& cache_key() const;
  // The built artifact (the shared library for `native`); valid while this Kernel lives.
  const std::filesystem::path& library_path() const;
  // The execution backend's device timer (tilec/exec/device_timer.h): the
  // device time of the launches since the previous take; nullopt without one.
  std::optional<double> take_device_time_ms() const;
  std::string device_clock() const;  // the device timer's name, "" without one

  // Callable functions in module order, and the lowered host function (its
  // params are the source function's).
  std::vector<std::string> function_names() const;
  const ir::PrimFunc& host_function(std::string_view function) const;
  // The parameters the kernel's source declares as outputs (`@tilelang.jit(out_idx=...)`,
  // T.empty), ascending: a caller allocates them and hands them back to the user.
  std::vector<size_t> output_indices(std::string_view function) const;

  // Each call with no function name needs a single-function module. An unknown
  // name, or a missing one in a multi-function module, throws EngineError
  // listing the functions.
  void call(std::string_view function, std::span<const TilecArg> args) const;
  void call(std::string_view function, std::span<const TilecArg> args,
            const CallOptions& options) const;
  void call(std::span<const TilecArg> args) const;
  void call(std::string_view function, const std::vector<DLTensor*>& tensors) const;
  void call(const std::vector<DLTensor*>& tensors) const;
  void call(std::string_view function, const std::vector<KernelArg>& args) const;
  void call(const std::vector<KernelArg>& args) const;
  // Raw pointers + shapes (+ scalars), each tensor in the dtype its parameter declares.
  void call_raw(std::string_view function, const std::vector<RawArg>& args) const;
  void call_raw(const std::vector<RawArg>& args) const;

 private:
  const std::string& resolve_function(std::string_view function) const;
  std::shared_ptr<const KernelState> state_;
};

}  // namespace tilec
