#include "tilec/gpu/lane_affine.h"

#include "tilec/ir/mentions.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/simplify.h"

#include <numeric>

namespace tilec::gpu {

using namespace ir;

namespace {

std::optional<Expr> coefficient(const Expr& e, const VarNode* v) {
  if (!mentions(e, v)) return make_zero(e.dtype());
  if (e.get() == v) return make_int(1, e.dtype());
  if (auto* c = e.as<CastNode>()) {
    if (!c->dtype.is_integer() || !c->value.dtype().is_integer()) return std::nullopt;
    auto inner = coefficient(c->value, v);
    if (!inner) return std::nullopt;
    return cast(c->dtype, *inner);
  }
  auto* b = e.as<BinaryNode>();
  if (!b || !e.dtype().is_integer()) return std::nullopt;
  switch (b->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub: {
      auto x = coefficient(b->a, v), y = coefficient(b->b, v);
      if (!x || !y) return std::nullopt;
      return binary(b->op, *x, *y);
    }
    case BinaryOp::kMul: {
      if (!mentions(b->a, v)) {
        auto y = coefficient(b->b, v);
        if (!y) return std::nullopt;
        return b->a * *y;
      }
      if (!mentions(b->b, v)) {
        auto x = coefficient(b->a, v);
        if (!x) return std::nullopt;
        return *x * b->b;
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<Expr> affine_coefficient(const Expr& e, const VarNode* v) {
  auto c = coefficient(e, v);
  if (!c) return std::nullopt;
  return transform::simplify(*c);
}

bool divisible_by(const Expr& e, int64_t n) {
  if (n == 1) return true;
  if (const int64_t* c = as_const_int(e)) return *c % n == 0;
  if (auto* c = e.as<CastNode>()) {
    // Widening or same-width integer casts keep the value.
    return c->dtype.is_integer() && c->value.dtype().is_integer() &&
           c->dtype.bits >= c->value.dtype().bits && divisible_by(c->value, n);
  }
  auto* b = e.as<BinaryNode>();
  if (!b || !e.dtype().is_integer()) return false;
  switch (b->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return divisible_by(b->a, n) && divisible_by(b->b, n);
    case BinaryOp::kMul: {
      if (divisible_by(b->a, n) || divisible_by(b->b, n)) return true;
      const int64_t* x = as_const_int(b->a);
      const int64_t* y = as_const_int(b->b);
      // k * e with gcd(k, n) = g: divisible when e is divisible by n / g.
      if (x && *x != 0) {
        int64_t g = std::gcd(*x, n);
        return g > 1 && divisible_by(b->b, n / g);
      }
      if (y && *y != 0) {
        int64_t g = std::gcd(*y, n);
        return g > 1 && divisible_by(b->a, n / g);
      }
      return false;
    }
    case BinaryOp::kShl: {
      const int64_t* s = as_const_int(b->b);
      if (s && *s >= 0 && *s < 62 && (int64_t(1) << *s) % n == 0) return true;
      return divisible_by(b->a, n);
    }
    default:
      return false;
  }
}

}  // namespace tilec::gpu
