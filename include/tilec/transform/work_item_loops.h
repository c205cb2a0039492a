// transform.work_item_loops: the CPU model's meaning of per-thread code (a T.Kernel whose
// body is a thread-binding nest, ir/thread_binding.h: T.get_thread_binding,
// T.launch_thread), as loops over the block's threads. It is the one implementation of
// docs/semantics.md's "Per-thread code": the CPU pipeline runs it first and the interpreter runs it
// before executing, so the two cannot disagree.
//
// The block body is split at its synchronisation points into phases. A synchronisation
// point is a barrier (T.sync_threads, T.tvm_storage_sync) or a block-collective
// operation: a tile op (T.copy, T.fill, T.gemm, T.reduce_*) or T.Parallel nest that
// touches no thread-private storage and no thread index; it runs once per block at its
// program point. Every maximal run of other statements between them becomes one phase:
// `for tz, ty, tx` over the block's threads (x fastest: thread order), the thread
// indices its loop variables. Loops and conditionals that hold a synchronisation point
// stay outside the phases and must be uniform: their bounds and conditions may not
// depend on a thread index or on thread-private storage; otherwise the pass throws
// IRError naming the construct, its line and the condition's line.
//
// Thread-private storage that lives across a phase boundary gets one copy per thread: a
// T.alloc_local / T.alloc_var buffer gains a leading dimension of the block's thread
// count, indexed by the flat thread index (a tile op on it in per-thread code touches
// that thread's copy); a scalar bound per thread (`v = A_local[0]`) is stored into such
// a buffer and read back where it is used. A per-thread name bound to a pure expression
// of thread indices (`row = tx // 4`) is recomputed in every phase instead.
//
// Output: the same kernel without the thread-binding nest, its barriers left at block
// level between the phases (where they are already satisfied: no-ops on the CPU model),
// so every later pass sees an ordinary tile-IR kernel. Kernels without
// per-thread code are returned unchanged (the same node).
#pragma once

#include "tilec/transform/pass.h"

namespace tilec::transform {

ir::PrimFunc work_item_loops(const ir::PrimFunc& func);
ir::IRModule work_item_loops(const ir::IRModule& mod);
Pass work_item_loops_pass();  // "tilec.work_item_loops"

}  // namespace tilec::transform
