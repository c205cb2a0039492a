// lower_tile_ops: rewrites T.copy, T.fill, T.gemm and T.reduce_* into ordinary loops
// of loads and stores with docs/semantics.md's meaning (copy edge masking: reads
// outside the source give zero, writes outside the destination are dropped), each
// through the implementation the tile-op registry selects for the target
// (tile_op_impl.h), as are Pipelined and thread-binding loops. The generic
// implementations emit loops whose independent iterations are ForKind::kParallel
// (T.Parallel stays so) and keep scheduled loops; a backend's own implementations
// (the cpu module's register-blocked gemm, serial scheduled loops) take precedence for
// its targets. Bad operands throw IRError.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/target/target.h"
#include "tilec/transform/pass.h"

namespace tilec::transform {

ir::Stmt lower_tile_ops(const ir::Stmt& body, const target::Target& target);
ir::IRModule lower_tile_ops(const ir::IRModule& mod, const target::Target& target);
Pass lower_tile_ops_pass();  // "tilec.lower_tile_ops", for the pipeline's target

}  // namespace tilec::transform
