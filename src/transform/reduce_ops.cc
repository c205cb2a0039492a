#include "tilec/transform/reduce_ops.h"

#include <cmath>

namespace tilec::transform {

using namespace ir;

Expr reduce_identity(ReduceKind kind, DataType t) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kAbsSum:
    case ReduceKind::kAbsMax:
      return make_zero(t);
    case ReduceKind::kMax:
    case ReduceKind::kMin: {
      bool max = kind == ReduceKind::kMax;
      if (t.is_float()) return make_float(max ? -INFINITY : INFINITY, t);
      if (t.is_uint()) return make_int(max ? 0 : int64_t(~uint64_t{0} >> (64 - t.bits)), t);
      int64_t hi = t.bits >= 64 ? INT64_MAX : (int64_t{1} << (t.bits - 1)) - 1;
      return make_int(max ? -hi - 1 : hi, t);
    }
  }
  return make_zero(t);
}

Expr reduce_combine(ReduceKind kind, Expr acc, Expr x) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kAbsSum:
      return binary(BinaryOp::kAdd, std::move(acc), std::move(x));
    case ReduceKind::kMax:
    case ReduceKind::kAbsMax:
      return binary(BinaryOp::kMax, std::move(acc), std::move(x));
    case ReduceKind::kMin:
      return binary(BinaryOp::kMin, std::move(acc), std::move(x));
  }
  return acc;
}

}  // namespace tilec::transform
