// Per-thread code in the tile IR. TileLang's T.get_thread_binding(d) and
// T.launch_thread("threadIdx.x", n) name "the index of the current thread along axis d of
// the block". The IR says it the way the SIMT lowering binds threads (and TVM does): the
// T.Kernel's body is wrapped in a nest of ForKind::kThreadBinding loops, one per axis of
// threads=, tagged "threadIdx.x", "threadIdx.y", "threadIdx.z", each over [0, extent),
// x outermost; their loop variables are the thread indices. Such a kernel has per-thread
// code (docs/semantics.md, "Per-thread code"): its scalar statements run once for every
// thread, its block-collective tile ops once per block. The SIMT lowering turns the nest
// into the hardware's thread binding; on the CPU model and in the interpreter
// transform::work_item_loops turns it into loops over the threads, split at barriers.
#pragma once

#include "tilec/ir/stmt.h"

#include <optional>
#include <unordered_set>
#include <vector>

namespace tilec::ir {

const char* thread_axis_tag(size_t axis);  // "threadIdx.x", "threadIdx.y", "threadIdx.z"

// The thread indices of `kernel` and the body inside their nest, when its body is one.
struct ThreadBinding {
  std::vector<Var> vars;  // one per axis of kernel.threads
  Stmt body;
};
std::optional<ThreadBinding> thread_binding_of(const KernelNode& kernel);

// Thread-private storage: T.alloc_local and T.alloc_var buffers, one copy per thread.
bool is_thread_private(const Buffer& buffer);

// Whether `e` may differ between the threads of a block: it mentions one of `per_thread`
// (thread indices and names bound to per-thread values) or reads thread-private storage.
bool varies_by_thread(const Expr& e, const std::unordered_set<const VarNode*>& per_thread);

// `body` wrapped in the nest binding `vars` (one per entry of `threads`).
Stmt bind_threads(const std::vector<Var>& vars, const std::vector<int64_t>& threads, Stmt body,
                  Span span = {});

}  // namespace tilec::ir
