// lower_tile_ops: rewrites T.copy, T.fill, T.gemm and T.reduce_* into ordinary loops
// of loads and stores with TILE_SEMANTICS.md's meaning (copy edge masking: reads
// outside the source give zero, writes outside the destination are dropped). Loops
// whose iterations are independent come out as ForKind::kParallel (T.Parallel stays
// so); Pipelined and thread-binding loops become serial. Bad operands throw IRError.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

namespace tilec::transform {

ir::Stmt lower_tile_ops(const ir::Stmt& body);
ir::IRModule lower_tile_ops(const ir::IRModule& mod);
Pass lower_tile_ops_pass();  // "tilec.lower_tile_ops"

}  // namespace tilec::transform
