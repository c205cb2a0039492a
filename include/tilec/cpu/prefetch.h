// T.Pipelined on CPU targets: overlapping the next stage's copies with this stage's
// compute by software prefetch. A CPU runs a block's statements in order, so the GPU's
// form (issue the next stage's copies asynchronously) has no CPU equivalent; what does
// overlap is asking the memory system for the next tiles early.
//  - prefetch_pipelined_copies (before lower_tile_ops) puts at the top of each iteration
//    of a T.Pipelined loop (num_stages > 0) `if (next iteration) { for row { for line
//    ... } }`: for every T.copy from a global tensor, a loop over the rows of the tile
//    that copy reads in the next iteration (the loop variable advanced by one step; the
//    leading dimensions as one index) around a loop over each row's cache lines, every
//    row and line guarded to the tensor's bounds. Copies it cannot describe (a
//    dimension of symbolic extent in the tile) are left without one.
//  - spread_prefetches (after lower_tile_ops) deals those lines out over the lowered
//    compute that follows in the iteration (its heaviest statement, the gemm's
//    micro-kernel loops): the outer serial loop of constant bounds and the first such
//    loop inside it form slots, and each slot prefetches its own slice of every copy's
//    rows (all their lines) at the top of its body. Left at the top where no such loop
//    follows.
// Results are unchanged: a prefetch reads nothing into the program.
// Why spread: a burst of one prefetch per line at the top of the iteration (256 lines for
// 64 x 32 and 32 x 64 float32 tiles) fills the core's miss buffers and stalls until most
// have arrived, so little overlaps (it measured 3-10% slower than none on an AVX-512
// Xeon); a few lines per micro-kernel overlap with its FMAs. On the float32 GEMM 1024^3
// (Zen 3, 1 thread) the copies from 1024-float rows (a 4 KiB stride the hardware
// prefetchers do not follow) were about half of the kernel's time without it.
// A prefetch is evaluate(call_extern(int32, kPrefetchFunction, {element})), `element` a
// load of the element whose line is wanted: the cpu codegens print it as
// __builtin_prefetch(&element) and llvm.prefetch of its address (read, keep in all
// cache levels), and never load the element. Pass-config key kPrefetchConfigKey (bool,
// default true) turns both passes on.
#pragma once

#include "tilec/ir/expr.h"
#include "tilec/transform/pass.h"

namespace tilec::cpu {

inline constexpr const char* kPrefetchFunction = "tilec_prefetch";
inline constexpr const char* kPrefetchConfigKey = "cpu.prefetch";
inline constexpr int64_t kCacheLineBytes = 64;

ir::Expr prefetch(ir::Expr element);
// The element load of a prefetch, else nullptr.
const ir::LoadNode* as_prefetch(const ir::Expr& e);
const ir::LoadNode* prefetch_element(const ir::CallNode& call);

ir::Stmt prefetch_pipelined_copies(const ir::Stmt& body);
transform::Pass prefetch_pipelined_copies_pass();

ir::Stmt spread_prefetches(const ir::Stmt& body);
transform::Pass spread_prefetches_pass();

}  // namespace tilec::cpu
