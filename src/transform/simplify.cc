#include "tilec/transform/simplify.h"

#include "tilec/ir/const_fold.h"
#include "tilec/ir/functor.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/structural.h"
#include "tilec/ir/tensor.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tilec::transform {

using namespace ir;

namespace {

using Wide = __int128;
constexpr int64_t kBoundLimit = int64_t{1} << 62;  // beyond this, bounds are dropped

std::optional<int64_t> checked(std::optional<Wide> v, DataType t) {
  if (!v) return std::nullopt;
  Wide lo = -Wide(kBoundLimit), hi = Wide(kBoundLimit);
  if (t.is_integer() && t.bits < 64) {  // a result beyond the dtype would have wrapped
    lo = t.is_uint() ? 0 : -(Wide(1) << (t.bits - 1));
    hi = t.is_uint() ? (Wide(1) << t.bits) - 1 : (Wide(1) << (t.bits - 1)) - 1;
  }
  if (*v < lo || *v > hi) return std::nullopt;
  return static_cast<int64_t>(*v);
}

std::optional<Wide> wide(const std::optional<int64_t>& v) {
  return v ? std::optional<Wide>(*v) : std::nullopt;
}

// floor(a / c) of a bound (c > 0), by the IR core's arithmetic.
std::optional<Wide> floor_div_wide(std::optional<Wide> a, int64_t c) {
  if (!a) return std::nullopt;
  return Wide(
      int_binary(BinaryOp::kFloorDiv, static_cast<int64_t>(*a), c, DataType::Int64())->value);
}

IntBounds binary_bounds(BinaryOp op, const IntBounds& a, const IntBounds& b, DataType t) {
  auto mk = [&](std::optional<Wide> lo, std::optional<Wide> hi) {
    return IntBounds{checked(lo, t), checked(hi, t)};
  };
  auto add = [](std::optional<int64_t> x, std::optional<int64_t> y) -> std::optional<Wide> {
    if (!x || !y) return std::nullopt;
    return Wide(*x) + Wide(*y);
  };
  auto sub = [](std::optional<int64_t> x, std::optional<int64_t> y) -> std::optional<Wide> {
    if (!x || !y) return std::nullopt;
    return Wide(*x) - Wide(*y);
  };
  switch (op) {
    case BinaryOp::kAdd:
      return mk(add(a.min, b.min), add(a.max, b.max));
    case BinaryOp::kSub:
      return mk(sub(a.min, b.max), sub(a.max, b.min));
    case BinaryOp::kMul: {
      if (a.min && a.max && b.min && b.max) {
        Wide p[] = {Wide(*a.min) * *b.min, Wide(*a.min) * *b.max, Wide(*a.max) * *b.min,
                    Wide(*a.max) * *b.max};
        return mk(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
      }
      if (a.non_negative() && b.non_negative()) {
        std::optional<Wide> hi;
        if (a.max && b.max) hi = Wide(*a.max) * *b.max;
        return mk(Wide(*a.min) * *b.min, hi);
      }
      return {};
    }
    case BinaryOp::kFloorDiv:
      if (b.min && b.max && *b.min == *b.max && *b.min > 0) {
        return mk(floor_div_wide(wide(a.min), *b.min), floor_div_wide(wide(a.max), *b.min));
      }
      if (a.non_negative() && b.min && *b.min >= 1) return mk(Wide(0), wide(a.max));
      return {};
    case BinaryOp::kFloorMod:
      if (b.min && *b.min >= 1) {
        if (a.non_negative() && a.max && b.min && *a.max < *b.min) return a;
        std::optional<Wide> hi;
        if (b.max) hi = Wide(*b.max) - 1;
        return mk(Wide(0), hi);
      }
      // A zero divisor traps at run time; every defined result is non-negative.
      if (b.min && *b.min >= 0) return mk(Wide(0), std::nullopt);
      return {};
    case BinaryOp::kMin: {
      IntBounds r;
      if (a.min && b.min) r.min = std::min(*a.min, *b.min);
      if (a.max || b.max) r.max = std::min(a.max.value_or(INT64_MAX), b.max.value_or(INT64_MAX));
      return r;
    }
    case BinaryOp::kMax: {
      IntBounds r;
      if (a.max && b.max) r.max = std::max(*a.max, *b.max);
      if (a.min || b.min) r.min = std::max(a.min.value_or(INT64_MIN), b.min.value_or(INT64_MIN));
      return r;
    }
    default:
      return {0, 1};  // comparisons and logic
  }
}

}  // namespace

IntBounds loop_var_bounds(const ForNode& loop, const VarBounds& vars) {
  IntBounds lo = bounds_of(loop.begin, vars);
  IntBounds hi = bounds_of(loop.end, vars);
  IntBounds b;
  if (loop.step > 0) {
    b.min = lo.min;
    if (hi.max) b.max = *hi.max - 1;
  } else {
    b.max = lo.max;
    if (hi.min) b.min = *hi.min + 1;
  }
  return b;
}

namespace {

// The bounds of an integer expression of dtype t, one rule per node kind.
class BoundsOf final : public ExprFunctor<IntBounds(DataType t)> {
 public:
  explicit BoundsOf(const VarBounds& vars) : vars(vars) {}

 private:
  const VarBounds& vars;

  IntBounds visit_expr(const IntImmNode* op, const Expr&, DataType t) override {
    int64_t v = op->value;
    return {v, v};
  }
  IntBounds visit_expr(const VarNode*, const Expr& e, DataType t) override {
    auto it = vars.find(static_cast<const VarNode*>(e.get()));
    IntBounds b = it == vars.end() ? IntBounds{} : it->second;
    if (t.is_uint() && !b.min) b.min = 0;
    return b;
  }
  IntBounds visit_expr(const BinaryNode* op, const Expr&, DataType t) override {
    return binary_bounds(op->op, bounds_of(op->a, vars), bounds_of(op->b, vars), t);
  }
  IntBounds visit_expr(const UnaryNode* op, const Expr&, DataType t) override {
    if (op->op != UnaryOp::kNeg) return {0, 1};
    IntBounds a = bounds_of(op->a, vars);
    return {checked(a.max ? std::optional<Wide>(-Wide(*a.max)) : std::nullopt, t),
            checked(a.min ? std::optional<Wide>(-Wide(*a.min)) : std::nullopt, t)};
  }
  IntBounds visit_expr(const SelectNode* op, const Expr&, DataType t) override {
    IntBounds a = bounds_of(op->true_value, vars), b = bounds_of(op->false_value, vars);
    IntBounds r;
    if (a.min && b.min) r.min = std::min(*a.min, *b.min);
    if (a.max && b.max) r.max = std::max(*a.max, *b.max);
    return r;
  }
  IntBounds visit_expr(const CastNode* op, const Expr&, DataType t) override {
    if (!op->value.dtype().is_integer() && !op->value.dtype().is_bool()) return {};
    DataType from = op->value.dtype();
    IntBounds a = bounds_of(op->value, vars);
    bool preserves_value = from.is_bool() || (from.code == t.code && t.bits >= from.bits) ||
                           (from.is_uint() && t.is_int() && t.bits > from.bits);
    if (preserves_value) return a;
    auto lo = checked(wide(a.min), t), hi = checked(wide(a.max), t);
    if (lo && hi) return {lo, hi};
    return t.is_uint() ? IntBounds{0, std::nullopt} : IntBounds{};
  }
  IntBounds visit_expr(const CallNode* op, const Expr&, DataType t) override {
    if (op->call_kind == CallKind::kIntrinsic && op->name == "abs") return {0, std::nullopt};
    return {};
  }
  IntBounds visit_expr(const FloatImmNode*, const Expr&, DataType t) override { return {}; }
  IntBounds visit_expr(const LoadNode*, const Expr&, DataType t) override { return {}; }
};

}  // namespace

IntBounds bounds_of(const Expr& e, const VarBounds& vars) {
  if (!e) return {};
  DataType t = e.dtype();
  if (t.is_bool()) return {0, 1};
  if (!t.is_integer() || t.lanes != 1) return {};
  return BoundsOf(vars).dispatch_expr(e, t);
}

namespace {

bool is_zero(const Expr& e) {
  if (auto* i = e.as<IntImmNode>()) return i->value == 0;
  return false;
}
bool is_one(const Expr& e) {
  if (auto* i = e.as<IntImmNode>()) return i->value == 1;
  if (auto* f = e.as<FloatImmNode>()) return f->value == 1.0;
  return false;
}

// e as base + offset, the offset a constant: x + 3 -> (x, 3), x - 2 -> (x, -2), x -> (x, 0).
std::pair<Expr, int64_t> split_offset(const Expr& e) {
  if (auto* b = e.as<BinaryNode>(); b && (b->op == BinaryOp::kAdd || b->op == BinaryOp::kSub)) {
    if (auto* c = b->b.as<IntImmNode>())
      return {b->a, b->op == BinaryOp::kAdd ? c->value : -c->value};
  }
  return {e, 0};
}

Expr make_binary_node(const BinaryNode* op, Expr a, Expr b) {
  auto n = std::make_shared<BinaryNode>(op->dtype, op->op, std::move(a), std::move(b));
  n->span = op->span;
  return Expr(std::move(n));
}

// Constants fold with the IR core's arithmetic (the interpreter's), except where the
// generated code may compute something else: INT64_MIN // -1 traps there, and C computes
// float16/bfloat16 and float operations other than + - * / and comparisons in another
// precision or through library calls.
std::optional<Expr> fold_constants(BinaryOp op, const Expr& a, const Expr& b) {
  DataType t = a.dtype();
  if (t.is_float()) {
    bool exact_on_host = (t.bits == 32 || t.bits == 64) && !t.is_bfloat16();
    bool exact_op = op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul ||
                    op == BinaryOp::kDiv || is_comparison(op);
    if (!exact_on_host || !exact_op) return std::nullopt;
    return fold_binary(op, a, b);
  }
  auto* ia = a.as<IntImmNode>();
  auto* ib = b.as<IntImmNode>();
  if (!ia || !ib) return std::nullopt;
  if (op == BinaryOp::kFloorDiv && t.is_int() && t.bits == 64 &&
      ia->value == std::numeric_limits<int64_t>::min() && ib->value == -1) {
    return std::nullopt;
  }
  return fold_binary(op, a, b);
}

class Simplifier : public StmtMutator {
 public:
  explicit Simplifier(VarBounds bounds) : bounds_(std::move(bounds)) {}

 protected:
  Expr mutate_binary(const BinaryNode* op, const Expr& self) override {
    Expr a = mutate(op->a);
    Expr b = mutate(op->b);
    DataType t = a.dtype();
    if (auto folded = fold_constants(op->op, a, b)) return *folded;
    auto* ia = a.as<IntImmNode>();
    auto* ib = b.as<IntImmNode>();
    auto* fa = a.as<FloatImmNode>();
    auto* fb = b.as<FloatImmNode>();
    bool integer = t.is_integer();
    switch (op->op) {
      case BinaryOp::kAdd:
        if (integer && is_zero(b)) return a;
        if (integer && is_zero(a)) return b;
        if (integer && ib) {  // (x + c1) + c2 -> x + (c1 + c2)
          if (auto* inner = a.as<BinaryNode>(); inner && inner->op == BinaryOp::kAdd) {
            if (auto* c1 = inner->b.as<IntImmNode>()) {
              return mutate(
                  binary(BinaryOp::kAdd, inner->a,
                         make_int(int_binary(BinaryOp::kAdd, c1->value, ib->value, t)->value, t)));
            }
          }
        }
        break;
      case BinaryOp::kSub: {
        if (integer && is_zero(b)) return a;
        // (x + c1) - (x + c2) = c1 - c2: the extent of a slice x * g:(x + 1) * g with g = 1,
        // which tile ops must see as the constant it is.
        auto [xa, ca] = split_offset(a);
        auto [xb, cb] = split_offset(b);
        if (integer && same_expr(xa, xb)) {
          if (auto d = int_binary(BinaryOp::kSub, ca, cb, t); d && !d->overflowed)
            return make_int(d->value, t);
        }
        break;
      }
      case BinaryOp::kMul:
        if (is_one(b) && (integer || fb)) return a;
        if (is_one(a) && (integer || fa)) return b;
        if (integer && (is_zero(a) || is_zero(b))) return make_zero(t);
        break;
      case BinaryOp::kFloorDiv:
        if (integer && is_one(b)) return a;
        break;
      case BinaryOp::kFloorMod:
        if (integer && is_one(b)) return make_zero(t);
        if (integer && ib && ib->value > 0) {
          IntBounds ba = bounds_of(a, bounds_);
          if (ba.non_negative() && ba.max && *ba.max < ib->value) return a;
        }
        break;
      case BinaryOp::kLT:
      case BinaryOp::kLE:
      case BinaryOp::kGT:
      case BinaryOp::kGE:
        if (integer) {
          if (auto decided = decide(op->op, a, b)) return make_bool(*decided);
        }
        break;
      case BinaryOp::kAnd:
        if (ia) return ia->value ? b : make_bool(false);
        if (ib) return ib->value ? a : make_bool(false);
        break;
      case BinaryOp::kOr:
        if (ia) return ia->value ? make_bool(true) : b;
        if (ib) return ib->value ? make_bool(true) : a;
        break;
      default:
        break;
    }
    if (a.same_as(op->a) && b.same_as(op->b)) return self;
    return make_binary_node(op, a, b);
  }

  Expr mutate_unary(const UnaryNode* op, const Expr& self) override {
    Expr a = mutate(op->a);
    if (auto* i = a.as<IntImmNode>()) {
      if (op->op == UnaryOp::kNot) return make_bool(i->value == 0);
      if (!op->dtype.is_float())
        return make_int(
            wrap_to_dtype(-static_cast<int64_t>(static_cast<uint64_t>(i->value)), op->dtype),
            op->dtype);
    }
    if (a.same_as(op->a)) return self;
    return unary(op->op, a, op->span);
  }

  Expr mutate_select(const SelectNode* op, const Expr& self) override {
    Expr c = mutate(op->cond);
    if (auto* i = c.as<IntImmNode>()) return mutate(i->value ? op->true_value : op->false_value);
    return StmtMutator::mutate_select(op, self);
  }

  Expr mutate_cast(const CastNode* op, const Expr& self) override {
    Expr v = mutate(op->value);
    if (auto* i = v.as<IntImmNode>(); i && op->dtype.is_integer()) {
      return make_int(wrap_to_dtype(i->value, op->dtype), op->dtype);
    }
    if (v.same_as(op->value)) return self;
    return cast(op->dtype, v, op->span);
  }

  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Expr begin = mutate(op->begin), end = mutate(op->end);
    auto* b = begin.as<IntImmNode>();
    auto* e = end.as<IntImmNode>();
    if (b && e && (op->step > 0 ? b->value >= e->value : b->value <= e->value)) return seq({});
    IntBounds lo = bounds_of(begin, bounds_), hi = bounds_of(end, bounds_);
    IntBounds range;
    if (op->step > 0) {
      range.min = lo.min;
      if (hi.max) range.max = *hi.max - 1;
    } else {
      range.max = lo.max;
      if (hi.min) range.min = *hi.min + 1;
    }
    bounds_[op->var.get()] = range;
    Stmt body = mutate(op->body);
    if (begin.same_as(op->begin) && end.same_as(op->end) && body.same_as(op->body)) return self;
    auto n = copy_node(op);
    n->begin = begin;
    n->end = end;
    n->body = body;
    return Stmt(n);
  }

  Stmt mutate_let(const LetNode* op, const Stmt& self) override {
    Expr value = mutate(op->value);
    bounds_[op->var.get()] = bounds_of(value, bounds_);
    Stmt body = mutate(op->body);
    if (value.same_as(op->value) && body.same_as(op->body)) return self;
    auto n = copy_node(op);
    n->value = value;
    n->body = body;
    return Stmt(n);
  }

  Stmt mutate_if(const IfNode* op, const Stmt& self) override {
    Expr c = mutate(op->cond);
    if (auto* i = c.as<IntImmNode>()) {
      Stmt chosen = i->value ? op->then_case : op->else_case;
      return chosen ? mutate(chosen) : seq({});
    }
    Stmt then_case = mutate(op->then_case);
    Stmt else_case = op->else_case ? mutate(op->else_case) : Stmt();
    if (c.same_as(op->cond) && then_case.same_as(op->then_case) && else_case.same_as(op->else_case))
      return self;
    auto n = copy_node(op);
    n->cond = c;
    n->then_case = then_case;
    n->else_case = else_case;
    return Stmt(n);
  }

  Stmt mutate_kernel(const KernelNode* op, const Stmt& self) override {
    for (size_t i = 0; i < op->block_vars.size() && i < op->grid.size(); ++i) {
      IntBounds g = bounds_of(op->grid[i], bounds_);
      IntBounds r{0, std::nullopt};
      if (g.max) r.max = *g.max - 1;
      bounds_[op->block_vars[i].get()] = r;
    }
    return StmtMutator::mutate_kernel(op, self);
  }

 private:
  std::optional<bool> decide(BinaryOp op, const Expr& a, const Expr& b) {
    IntBounds x = bounds_of(a, bounds_), y = bounds_of(b, bounds_);
    auto lt = [](const IntBounds& p, const IntBounds& q) -> std::optional<bool> {
      if (p.max && q.min && *p.max < *q.min) return true;
      if (p.min && q.max && *p.min >= *q.max) return false;
      return std::nullopt;
    };
    switch (op) {
      case BinaryOp::kLT:
        return lt(x, y);
      case BinaryOp::kGT:
        return lt(y, x);
      case BinaryOp::kLE:
        if (auto r = lt(y, x)) return !*r;
        return std::nullopt;
      case BinaryOp::kGE:
        if (auto r = lt(x, y)) return !*r;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  VarBounds bounds_;
};

}  // namespace

Expr simplify(const Expr& e, const VarBounds& vars) {
  return Simplifier(vars).mutate(e);
}
Stmt simplify(const Stmt& s, const VarBounds& vars) {
  return Simplifier(vars).mutate(s);
}

IRModule simplify(const IRModule& mod) {
  return map_function_bodies(mod, [](const PrimFunc& f) {
    VarBounds vars;
    for (const auto& v : symbolic_shape_vars(f)) vars[v.get()] = {0, std::nullopt};
    return simplify(f->body, vars);
  });
}

Pass simplify_pass() {
  return Pass{"tilec.simplify", [](const IRModule& mod, const PassInfo&) { return simplify(mod); }};
}

}  // namespace tilec::transform
