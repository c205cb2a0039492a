// T.Pipelined on CPU targets: overlapping the next stage's copies with this stage's
// compute by software prefetch. A CPU runs a block's statements in order, so the GPU's
// form (issue the next stage's copies asynchronously) has no CPU equivalent; what does
// overlap is asking the memory system for the next tiles early. prefetch_pipelined_copies
// (a pass of the cpu pipeline, before lower_tile_ops) puts at the top of each iteration
// of a T.Pipelined loop (num_stages > 0) a prefetch of every cache line that the
// iteration's T.copy from a global tensor will read in the next iteration (the loop
// variable advanced by one step), rows and columns guarded to the tensor's bounds and
// the last iteration prefetching nothing. Results are unchanged: a prefetch reads
// nothing into the program. Copies it cannot describe (a dimension of symbolic extent
// in the tile) are left without one.
// A prefetch is evaluate(call_extern(int32, kPrefetchFunction, {element})), `element` a
// load of the element whose line is wanted: the cpu codegens print it as
// __builtin_prefetch(&element) and llvm.prefetch of its address (read, keep in all
// cache levels), and never load the element. Pass-config key kPrefetchConfigKey (bool,
// default false) turns the pass on. Off by default because it did not pay: on the
// float32 GEMM benchmarks (1024^3 and 2048^3, c and llvm, 1 thread, Xeon with AVX-512)
// every case ran 3-10% faster without it. The burst of one prefetch per line at the top
// of each iteration costs more than the misses it hides: the copy's next tiles (16 KiB
// for 64 x 32 and 32 x 64 float32 tiles) arrive while the micro-kernel's own working set
// (the two tiles and a 64 x 64 accumulator, 32 KiB) fills the 48 KiB L1.
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

}  // namespace tilec::cpu
