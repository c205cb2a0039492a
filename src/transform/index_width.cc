#include "tilec/transform/index_width.h"

#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"

#include <limits>
#include <unordered_map>

namespace tilec::transform {

using namespace ir;

namespace {

bool is_narrow_int(DataType t) {
  return t.is_int() && t.bits < 64;
}

bool is_index_arithmetic(const Expr& e) {
  if (!is_narrow_int(e.dtype())) return false;
  bool pure = true;
  post_order_visit(e, [&](const Expr& x) {
    if (x.as<LoadNode>() || x.as<CallNode>() || x.dtype().is_float()) pure = false;
  });
  return pure;
}

class BindingWidener : public StmtMutator {
 protected:
  Expr mutate_var(const VarNode* op, const Expr& self) override {
    auto it = rebound_.find(op);
    return it == rebound_.end() ? self : it->second;
  }

  Stmt mutate_let(const LetNode* op, const Stmt& self) override {
    if (!is_narrow_int(op->var.dtype()) || !is_index_arithmetic(op->value))
      return StmtMutator::mutate_let(op, self);
    Expr value = widen_index(mutate(op->value));
    Var wide = make_var(op->var.name(), DataType::Int64(), op->var->span);
    rebound_[op->var.get()] = wide;
    Stmt body = mutate(op->body);
    rebound_.erase(op->var.get());
    return let(wide, value, body, op->span);
  }

 private:
  std::unordered_map<const VarNode*, Expr> rebound_;
};

}  // namespace

bool needs_wide_index(const Buffer& b) {
  if (b->scope != StorageScope::kGlobal) return false;
  __int128 numel = 1;
  for (const auto& d : b->shape) {
    const int64_t* c = as_const_int(d);
    if (!c) return true;  // symbolic: not proven small
    numel *= *c;
    if (numel > std::numeric_limits<int32_t>::max()) return true;
  }
  return false;
}

bool function_needs_wide_index(const PrimFunc& func) {
  for (const auto& p : func->params)
    if (p.is_buffer() && needs_wide_index(p.buffer)) return true;
  return false;
}

Expr widen_index(const Expr& e) {
  DataType i64 = DataType::Int64();
  if (!is_narrow_int(e.dtype())) return e;
  if (const int64_t* c = as_const_int(e)) return make_int(*c, i64);
  if (auto* b = e.as<BinaryNode>()) {
    switch (b->op) {
      case BinaryOp::kAdd:
      case BinaryOp::kSub:
      case BinaryOp::kMul:
      case BinaryOp::kFloorDiv:
      case BinaryOp::kFloorMod:
      case BinaryOp::kMin:
      case BinaryOp::kMax:
        return binary(b->op, widen_index(b->a), widen_index(b->b), b->span);
      default:
        break;
    }
  }
  if (auto* s = e.as<SelectNode>())
    return select(s->cond, widen_index(s->true_value), widen_index(s->false_value), s->span);
  if (auto* c = e.as<CastNode>(); c && c->value.dtype().is_int() && c->value.dtype().bits <= 32)
    return widen_index(c->value);  // a widening or same-width cast of an index
  return cast(i64, e);
}

Stmt widen_index_bindings(const Stmt& body) {
  return BindingWidener().mutate(body);
}

}  // namespace tilec::transform
