// The operands of one T.gemm as 2-D matrices (shared by every gemm implementation, the
// generic loop nest in lower_tile_ops and a backend's own kernels): analyze_gemm checks
// the shapes (A is MxK, B is KxN, C is MxN; transposes swap A's/B's dims) and throws
// IRError naming the operand or extent that disagrees.
#pragma once

#include "tilec/ir/stmt.h"

#include <vector>

namespace tilec::transform {

// A 2-D view of a gemm operand: rows/cols of the region, in the buffer's dims.
struct GemmMatrix {
  ir::Buffer buffer;
  std::vector<ir::Expr> starts;
  int row_dim = 0, col_dim = 1;
  ir::Expr rows, cols;

  ir::Expr at(const ir::Expr& r, const ir::Expr& c) const;  // the load of element (r, c)
  std::vector<ir::Expr> indices(const ir::Expr& r, const ir::Expr& c) const;
};

struct GemmOperands {
  GemmMatrix a, b, c;
  ir::Expr M, N, K;  // K: the constant one of A's and B's, when either is constant
  ir::DataType acc;  // C's dtype, in which products are summed
};

GemmOperands analyze_gemm(const ir::GemmNode& op);

// `loops` preceded by C = 0 when op.clear_accum, else `loops`.
ir::Stmt with_clear_accum(const ir::GemmNode& op, const GemmOperands& g, ir::Stmt loops);

}  // namespace tilec::transform
