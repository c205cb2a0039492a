// vectorize_loops: marks innermost loops with independent iterations
// (ForKind::kParallel, as T.Parallel and tile-op lowering produce them) as
// ForKind::kVectorized, which C-like printers turn into vectorization pragmas;
// outer kParallel loops become serial, since a block runs sequentially on a CPU.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

namespace tilec::transform {

ir::Stmt vectorize_loops(const ir::Stmt& body);
ir::IRModule vectorize_loops(const ir::IRModule& mod);
Pass vectorize_loops_pass();  // "tilec.vectorize_loops"

}  // namespace tilec::transform
