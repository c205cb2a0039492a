// gpu.lower_simt: the SIMT lowering of every T.Kernel, shared by the GPU backends
// (opencl today; cuda, hip, metal, webgpu list it too). Per kernel:
//  1. the block's threads (T.Kernel threads=, at most the target's max_threads_per_block)
//     are bound: one thread-binding loop per axis ("threadIdx.x", ...), `tid` their flat
//     index; a kernel with per-thread code (ir/thread_binding.h) uses its own thread
//     indices as those loops' variables, and its scalar statements run on every thread
//     (docs/semantics.md, "Per-thread code");
//  2. fragment layouts are inferred (fragment_layout.h) and recorded on the function as
//     attrs "tilec.layout.<fragment>"; each fragment becomes per-thread registers
//     (a local buffer of the layout's register count);
//  3. tile ops are lowered through the tile-op registry (simt_tile_ops.h for gemm and
//     reduce; the generic copy/fill nests, whose edge masking stays as it is);
//  4. every T.Parallel nest is split over the threads as one flat range, thread tid
//     taking iterations tid, tid + T, ... (consecutive threads touch consecutive
//     elements: coalesced); a nest that writes a replicated fragment, or touches a
//     thread index or thread-private storage, instead runs whole on every thread.
//     Outside split nests, stores to shared or global memory that do not depend on the
//     thread are done by thread 0 alone;
//  5. shared allocations move to the top of the kernel (workgroup memory is per block).
// Barriers are left to gpu.plan_barriers. Errors (too many threads, no layout, a
// thread-binding loop in the source) name the kernel, the source line and what to change.
#pragma once

#include "tilec/transform/pass.h"

namespace tilec::gpu {

inline constexpr const char* kLayoutAttrPrefix = "tilec.layout.";
inline constexpr const char* kThreadIndexName = "tid";

ir::IRModule lower_simt(const ir::IRModule& mod, const target::Target& target);
transform::Pass lower_simt_pass();  // "gpu.lower_simt"

}  // namespace tilec::gpu
