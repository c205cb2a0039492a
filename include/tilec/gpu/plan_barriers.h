// gpu.plan_barriers: inserts evaluate(barrier(scope)) exactly where a thread may read or
// write a shared (or global) element that another thread of the block wrote, or write
// one another thread read, since the last barrier (RAW, WAR, WAW), modelled on
// TileLang's thread-sync planning. Two accesses are by the same thread when their
// indices are the same expression of the thread index `tid` (after the lets the SIMT
// lowering binds are substituted and loop variables compared by position), which is
// the case of a tile copied into shared memory and read by a T.Parallel over its shape:
// no barrier there. Loops are planned for their next iteration too (a copy at the top of
// a K loop waits for the gemm that read the previous tile). Barriers are only placed in
// block-uniform control flow: never inside a nest split over the threads or under a
// condition on the thread index. Runs after gpu.lower_simt, before flattening.
#pragma once

#include "tilec/transform/pass.h"

namespace tilec::gpu {

ir::Stmt plan_barriers(const ir::Stmt& kernel_body);
ir::IRModule plan_barriers(const ir::IRModule& mod);
transform::Pass plan_barriers_pass();  // "gpu.plan_barriers"

}  // namespace tilec::gpu
