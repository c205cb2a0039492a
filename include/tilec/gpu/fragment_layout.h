// Fragment layouts of the SIMT model: how the elements of a T.alloc_fragment tile are
// spread over the threads of a block, as index expressions (TileLang's `Fragment`: a
// forward thread and a forward index). A layout maps element (i0, i1, ...) to the thread
// that holds it and the register it sits in (`thread_of`, `register_of`), and back: a
// thread's register r holds element `element_of` where `holds` is true. The SIMT lowering
// splits a T.Parallel nest over a fragment by the inverse (thread tid runs its registers
// r = 0 .. registers-1 and computes the element each holds), so element-wise code, copies
// and reductions follow whatever layout a fragment has, and a tile-op implementation
// (a register-blocked or tensor-core gemm) addresses a fragment's registers directly.
//
// Layouts come from factories: `cyclic` (element f, the row-major flat index, in thread
// f % T, register f / T: the default of element-wise tiles), `replicated` (every thread
// holds every element: reduction results and tiles read at other than a loop's own
// indices), and the gemm implementations' own (simt_gemm.h's micro-tiles, CUDA's mma
// layouts). infer_fragment_layouts derives them from how each fragment is used.
#pragma once

#include "tilec/ir/stmt.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilec::gpu {

struct FragmentLayout {
  std::string kind;            // "cyclic", "replicated", "micro-tile 8x4", "mma m16n8 C/D"
  std::vector<int64_t> shape;  // the fragment's (constant) shape
  int64_t num_threads = 1;
  int64_t registers = 0;  // per thread
  bool replicated = false;
  // Forward: element -> thread, register. Expressions in index_vars, one per dimension.
  std::vector<ir::Var> index_vars;
  ir::Expr thread_of, register_of;
  // Inverse: (thread_var, register_var) -> the element's indices, valid where `holds`.
  ir::Var thread_var, register_var;
  std::vector<ir::Expr> element_of;
  ir::Expr holds;
  std::string reason;  // which use decided it ("the accumulator of T.gemm at line 12")

  // "C_local[64, 64] float32: cyclic over 128 threads, (i, j) -> thread (i*64 + j) % 128,
  //  register (i*64 + j) // 128, 32 registers per thread (accumulator of T.gemm, line 21)"
  std::string describe(const ir::Buffer& fragment) const;
  // The mapping alone, without the fragment or the reason: two layouts are the same when
  // their mappings print the same.
  std::string mapping() const;
  bool same_mapping(const FragmentLayout& other) const { return mapping() == other.mapping(); }

  // The same mapping over `shape`, whose dimensions other than 1 are this layout's
  // dimensions other than 1 (a (64, 1, 64) tile following a (64, 64) one); nullopt when
  // they differ.
  std::optional<FragmentLayout> reshaped(const std::vector<int64_t>& shape) const;

  // Evaluations on constants (layout tests, checks): thread and register of an element,
  // and the element a thread's register holds (nullopt where it holds none).
  int64_t thread_at(const std::vector<int64_t>& index) const;
  int64_t register_at(const std::vector<int64_t>& index) const;
  std::optional<std::vector<int64_t>> element_at(int64_t thread, int64_t reg) const;
};

// Element f = row-major flat index in thread f % T, register f / T.
FragmentLayout cyclic_layout(const std::vector<int64_t>& shape, int64_t num_threads);
// Every thread holds every element, register = flat index.
FragmentLayout replicated_layout(const std::vector<int64_t>& shape, int64_t num_threads);

// A layout given by its expressions: the index variables are named i, j, k, ... (one per
// dimension of shape), the inverse's t and r. `build` fills thread_of, register_of,
// element_of and holds (left empty: true) from them.
FragmentLayout make_layout(std::string kind, const std::vector<int64_t>& shape, int64_t num_threads,
                           int64_t registers, const std::function<void(FragmentLayout&)>& build);

// Checks that `layout` is a bijection between its elements and the (thread, register)
// pairs where `holds` is true: every element's forward image holds that element back.
// Returns a description of the first mismatch, or "" when the layout is consistent.
std::string check_layout(const FragmentLayout& layout);

using FragmentLayouts = std::map<const ir::BufferNode*, FragmentLayout>;

// "line 12" (or "an unknown line"): how layout reasons and errors name a use's place.
std::string source_line(const ir::Span& span);

// A layout a tile-op implementation requires for a fragment it writes by registers (a
// gemm's accumulator), with the use that requires it.
struct LayoutRequirement {
  FragmentLayout layout;
  std::string use;  // "the accumulator of T.gemm at line 12"
};
using LayoutRequirements = std::map<const ir::BufferNode*, LayoutRequirement>;

// Layouts of every fragment allocated in `kernel` (its body still holds tile ops and
// T.Parallel loops): the required ones (`required`, from the gemm implementations), the
// layout of a fragment used together with one in a T.Parallel nest or T.copy propagated
// to it, replication where a use needs every thread to hold all of a fragment, cyclic
// otherwise. Throws ir::IRError naming the conflicting uses and their lines when a
// fragment cannot be laid out, or when a fragment's shape is not constant.
FragmentLayouts infer_fragment_layouts(const ir::KernelNode& kernel, int64_t num_threads,
                                       const std::string& function_name,
                                       const LayoutRequirements& required = {});

// A fragment the SIMT lowering keeps in shared memory instead of registers (TileLang's
// layout conversion through shared memory): its writers store it in their own layout,
// the barrier planner orders those stores before its reads, and T.gemm reads it like a
// shared operand.
struct StagedFragment {
  ir::Buffer fragment;
  std::string reason;  // why registers cannot hold it
};
// The fragments of `kernel` to stage: a T.gemm operand whose replication would spread
// (through a whole-tile T.copy or a T.Parallel nest) to a fragment with a required layout
// (a gemm accumulator); and, with a budget (> 0), a fragment every thread would hold whole
// whose bytes alone exceed `register_budget_bytes`, while `shared_bytes_left` (-1: no
// limit) has room for it. Gemm accumulators are never staged.
std::vector<StagedFragment> fragments_to_stage(const ir::KernelNode& kernel, int64_t num_threads,
                                               const std::string& function_name,
                                               const LayoutRequirements& required,
                                               int64_t register_budget_bytes,
                                               int64_t shared_bytes_left);

}  // namespace tilec::gpu
