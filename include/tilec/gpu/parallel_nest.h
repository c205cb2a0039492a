// A T.Parallel loop nest as the SIMT lowering sees it: the perfect nest of kParallel
// loops starting at one loop (what T.Parallel(e0, e1, ...) and the generic copy/fill
// lowerings produce), its iteration space split over threads as one flat range.
#pragma once

#include "tilec/ir/stmt.h"

#include <optional>
#include <vector>

namespace tilec::gpu {

struct ParallelNest {
  std::vector<ir::Var> vars;      // outermost first
  std::vector<ir::Expr> extents;  // each loop runs [0, extent)
  ir::Stmt body;                  // the innermost loop's body
};

// The perfect nest of step-1, zero-based kParallel loops starting at `outer` (itself one).
ParallelNest parallel_nest(const ir::ForNode* outer);

// Whether `indices` of `fragment` are the nest's own variables over the fragment's whole
// shape (unit dimensions indexed by 0 or by an extent-1 loop aside), so the nest's flat
// iteration index equals the element's flat index.
bool follows_nest(const ParallelNest& nest, const ir::Buffer& fragment,
                  const std::vector<ir::Expr>& indices);

}  // namespace tilec::gpu
