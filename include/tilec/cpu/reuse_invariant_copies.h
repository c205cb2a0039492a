// Reuse of block-invariant tiles across the blocks one cpu task runs (a pass of the cpu
// pipeline, right after lower_tile_ops). A task runs a contiguous range of the grid's
// blocks (bind_blocks_to_task_range, x fastest). In a GEMM the B tile a K-loop iteration
// copies (and the gemm packs) depends on k and bx only, yet every M block copies and
// packs it again. reuse_invariant_copies finds, in each top-level serial loop `for k` of
// a T.Kernel body, the statements whose result depends on k and on block variables other
// than one, `u`:
//  - they store only into tiles (shared/fragment/local) allocated in the kernel and
//    touched nowhere outside the loop, and no other statement in the loop stores into
//    those tiles or touches them before them in the iteration;
//  - they read only global tensors no statement of the kernel writes, and tiles such
//    statements already wrote in this iteration; they use no block variable `u`, no
//    variable bound in the kernel other than k, and call no function;
//  - the first of them to write a tile writes all of it (a loop nest over its shape).
// The tiles other statements read (the outputs) get a cache of one copy per iteration
// of k, allocated once per task; the statements write the cache and the rest of the
// loop reads it. The statements, and the prefetches of tensors only they read, are
// skipped when the previous block of the task had the same other block coordinates:
// `u` becomes the grid's first (fastest) dimension, so that is exactly `u != 0` and
// not the task's first block (the marker first_block_of_task(), which
// bind_blocks_to_task_range replaces by `block == block_begin`). The `u` chosen is the
// one whose statements store the most elements; a cache over kMaxCacheBytes, a loop of
// non-constant trip count or a step other than 1 is left alone.
// Pass-config key kReuseInvariantCopiesConfigKey (bool, default true) turns it off.
#pragma once

#include "tilec/ir/stmt.h"
#include "tilec/transform/pass.h"

namespace tilec::cpu {

inline constexpr const char* kReuseInvariantCopiesConfigKey = "cpu.reuse_invariant_copies";
inline constexpr int64_t kMaxCacheBytes = int64_t(4) << 20;

// A bool intrinsic call with no arguments that no source can spell; true in the first
// block a cpu task runs.
ir::Expr first_block_of_task();
// `body` with every first_block_of_task() replaced by `is_first`.
ir::Stmt bind_first_block_of_task(const ir::Stmt& body, const ir::Expr& is_first);

ir::Stmt reuse_invariant_copies(const ir::Stmt& body);
transform::Pass reuse_invariant_copies_pass();  // "cpu.reuse_invariant_copies"

}  // namespace tilec::cpu
