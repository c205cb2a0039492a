#include "tilec/cpu/guarded_loop_bounds.h"

#include "tilec/ir/mentions.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/simplify.h"

#include <vector>

namespace tilec::cpu {

using namespace ir;

namespace {

// `coef * v + rest`, rest an int64 expression that does not mention v.
struct Linear {
  int64_t coef = 0;
  Expr rest;
};

// Integer dtypes whose values int64 holds exactly, so rearranging a comparison in int64
// cannot overflow where the original did not.
bool exact_in_int64(DataType t) {
  return t.lanes == 1 && (t.is_int() || (t.is_uint() && t.bits < 64));
}

// Integer arithmetic that can be evaluated ahead of the loop, once, even when the loop
// would not run or its guard would have stopped short of it: no loads or calls (which
// may read out of bounds), no division but by a non-zero constant (the C codegen's
// division-by-zero check would fire where the original never divided).
bool hoistable(const Expr& e) {
  bool ok = true;
  post_order_visit(e, [&](const Expr& x) {
    switch (x.kind()) {
      case ExprKind::kIntImm:
      case ExprKind::kVar:
      case ExprKind::kCast:
        break;
      case ExprKind::kUnary:
        ok = ok && x.as<UnaryNode>()->op == UnaryOp::kNeg;
        break;
      case ExprKind::kBinary: {
        const auto* b = x.as<BinaryNode>();
        switch (b->op) {
          case BinaryOp::kAdd:
          case BinaryOp::kSub:
          case BinaryOp::kMul:
          case BinaryOp::kMin:
          case BinaryOp::kMax:
          case BinaryOp::kLT:
          case BinaryOp::kLE:
          case BinaryOp::kGT:
          case BinaryOp::kGE:
          case BinaryOp::kEQ:
          case BinaryOp::kNE:
          case BinaryOp::kAnd:
          case BinaryOp::kOr:
            break;
          case BinaryOp::kFloorDiv:
          case BinaryOp::kFloorMod: {
            const auto* k = b->b.as<IntImmNode>();
            ok = ok && k != nullptr && k->value != 0;
            break;
          }
          default:
            ok = false;
        }
        break;
      }
      default:
        ok = false;
    }
  });
  return ok && (e.dtype().is_bool() || exact_in_int64(e.dtype()));
}

std::optional<Linear> linear_in(const Expr& e, const VarNode* v) {
  if (!exact_in_int64(e.dtype())) return std::nullopt;
  if (!mentions(e, v)) {
    if (!hoistable(e)) return std::nullopt;
    return Linear{0, cast(DataType::Int64(), e)};
  }
  if (e.get() == v) return Linear{1, make_zero(DataType::Int64())};
  if (const auto* c = e.as<CastNode>()) {
    // Widening only: a narrowing cast wraps, which no linear form models.
    if (!exact_in_int64(c->value.dtype()) || c->value.dtype().bits > e.dtype().bits)
      return std::nullopt;
    return linear_in(c->value, v);
  }
  if (const auto* u = e.as<UnaryNode>(); u && u->op == UnaryOp::kNeg) {
    auto a = linear_in(u->a, v);
    if (!a) return std::nullopt;
    return Linear{-a->coef, -a->rest};
  }
  const auto* b = e.as<BinaryNode>();
  if (b == nullptr) return std::nullopt;
  auto a = linear_in(b->a, v), c = linear_in(b->b, v);
  if (!a || !c) return std::nullopt;
  switch (b->op) {
    case BinaryOp::kAdd:
      return Linear{a->coef + c->coef, a->rest + c->rest};
    case BinaryOp::kSub:
      return Linear{a->coef - c->coef, a->rest - c->rest};
    case BinaryOp::kMul: {
      // One side a constant: the other scaled by it.
      const auto* ka = b->a.as<IntImmNode>();
      const auto* kc = b->b.as<IntImmNode>();
      if (kc != nullptr)
        return Linear{a->coef * kc->value, a->rest * make_int(kc->value, DataType::Int64())};
      if (ka != nullptr)
        return Linear{c->coef * ka->value, c->rest * make_int(ka->value, DataType::Int64())};
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

void split_conjuncts(const Expr& cond, std::vector<Expr>* out) {
  if (const auto* b = cond.as<BinaryNode>(); b && b->op == BinaryOp::kAnd) {
    split_conjuncts(b->a, out);
    split_conjuncts(b->b, out);
  } else {
    out->push_back(cond);
  }
}

struct Bounds {
  std::vector<Expr> lower;  // v >= each
  std::vector<Expr> upper;  // v < each
  std::vector<Expr> invariant;
};

// Adds conjunct `a op b` to `bounds`; false when it is not of the foldable form.
bool add_conjunct(const Expr& conjunct, const VarNode* v, Bounds* bounds) {
  if (!mentions(conjunct, v)) {
    if (!hoistable(conjunct)) return false;
    bounds->invariant.push_back(conjunct);
    return true;
  }
  const auto* cmp = conjunct.as<BinaryNode>();
  if (cmp == nullptr) return false;
  BinaryOp op = cmp->op;
  if (op != BinaryOp::kLT && op != BinaryOp::kLE && op != BinaryOp::kGT && op != BinaryOp::kGE)
    return false;
  auto a = linear_in(cmp->a, v), b = linear_in(cmp->b, v);
  if (!a || !b) return false;
  // (a.coef - b.coef) * v  op  b.rest - a.rest
  int64_t coef = a->coef - b->coef;
  if (coef != 1 && coef != -1) return false;
  // v op (b.rest - a.rest); or, for -v, v op' (a.rest - b.rest), op' mirrored.
  Expr rest = transform::simplify(coef == 1 ? b->rest - a->rest : a->rest - b->rest);
  if (coef == -1) {
    switch (op) {
      case BinaryOp::kLT:
        op = BinaryOp::kGT;
        break;
      case BinaryOp::kLE:
        op = BinaryOp::kGE;
        break;
      case BinaryOp::kGT:
        op = BinaryOp::kLT;
        break;
      default:
        op = BinaryOp::kLE;
        break;
    }
  }
  Expr one = make_int(1, DataType::Int64());
  switch (op) {
    case BinaryOp::kLT:
      bounds->upper.push_back(rest);
      break;
    case BinaryOp::kLE:
      bounds->upper.push_back(rest + one);
      break;
    case BinaryOp::kGT:
      bounds->lower.push_back(rest + one);
      break;
    default:
      bounds->lower.push_back(rest);
      break;
  }
  return true;
}

}  // namespace

std::optional<Stmt> fold_guard_into_loop_bounds(const ForNode& loop) {
  if (loop.for_kind != ForKind::kVectorized || loop.step != 1) return std::nullopt;
  if (!exact_in_int64(loop.var.dtype())) return std::nullopt;
  // Lets in front of the `if` are seen through (`idx = bx * block + i; if idx < N`).
  std::vector<const LetNode*> lets;
  VarMap values;
  Stmt inner = loop.body;
  while (const auto* l = inner.as<LetNode>()) {
    lets.push_back(l);
    values[l->var.get()] = substitute(l->value, values);
    inner = l->body;
  }
  const auto* guard = inner.as<IfNode>();
  if (guard == nullptr || guard->else_case) return std::nullopt;
  std::vector<Expr> conjuncts;
  split_conjuncts(substitute(guard->cond, values), &conjuncts);
  Bounds bounds;
  for (const Expr& c : conjuncts)
    if (!add_conjunct(c, loop.var.get(), &bounds)) return std::nullopt;
  if (bounds.lower.empty() && bounds.upper.empty()) return std::nullopt;

  DataType i64 = DataType::Int64();
  Expr begin = cast(i64, loop.begin), end = cast(i64, loop.end);
  Expr new_begin = begin, new_end = end;
  for (const Expr& l : bounds.lower) new_begin = max(new_begin, l);
  for (const Expr& u : bounds.upper) new_end = min(new_end, u);
  // Clamped into [begin, end], so both fit the loop variable's dtype.
  new_begin = min(new_begin, end);
  new_end = max(new_end, begin);
  DataType t = loop.var.dtype();
  Stmt body = guard->then_case;
  for (size_t i = lets.size(); i-- > 0;)
    body = let(lets[i]->var, lets[i]->value, body, lets[i]->span);
  // Bounds that are not plain get a name, so the loop header stays readable.
  auto named = [&](Expr bound, const char* suffix, std::vector<std::pair<Var, Expr>>* defs) {
    bound = transform::simplify(cast(t, bound));
    if (bound.as<IntImmNode>() || bound.as<VarNode>()) return bound;
    Var name = make_var(loop.var.name() + suffix, t);
    defs->emplace_back(name, bound);
    return Expr(name);
  };
  std::vector<std::pair<Var, Expr>> defs;
  Expr b = named(new_begin, "_begin", &defs), e = named(new_end, "_end", &defs);
  Stmt folded = for_loop(loop.var, b, e, body, loop.for_kind, 1, loop.span);
  for (size_t i = defs.size(); i-- > 0;)
    folded = let(defs[i].first, defs[i].second, folded, loop.span);
  if (!bounds.invariant.empty()) {
    Expr cond = bounds.invariant[0];
    for (size_t i = 1; i < bounds.invariant.size(); ++i)
      cond = logical_and(cond, bounds.invariant[i]);
    folded = if_then_else(cond, folded, {}, guard->span);
  }
  return folded;
}

}  // namespace tilec::cpu
