// The arithmetic of T.reduce_* shared by every reduce implementation (the generic loop
// nest and the SIMT one): the identity a reduction starts from and how one element is
// combined into the running value (abs is applied to the element by the caller).
#pragma once

#include "tilec/ir/stmt.h"

namespace tilec::transform {

// 0 for sums and absmax; -inf / +inf (floats) or the type's extreme (integers) for max/min.
ir::Expr reduce_identity(ir::ReduceKind kind, ir::DataType t);
// acc + x (sum, abssum), max(acc, x) (max, absmax), min(acc, x) (min).
ir::Expr reduce_combine(ir::ReduceKind kind, ir::Expr acc, ir::Expr x);

}  // namespace tilec::transform
