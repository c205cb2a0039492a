#include "tilec/transform/bounds_check.h"

#include "tilec/ir/bounds_call.h"
#include "tilec/ir/mutator.h"

#include <fmt/format.h>

namespace tilec::transform {

using namespace ir;

namespace {

Expr both(const Expr& path, const Expr& cond) {
  return path.defined() ? logical_and(path, cond) : cond;
}

// Inserts the checks of one function body (see the header for the rules).
class BoundsChecker : public StmtMutator {
 protected:
  Stmt mutate_store(const StoreNode* op, const Stmt& self) override {
    Checks checks(op->span);
    for (const auto& i : op->indices) collect(i, {}, checks);
    collect(op->value, {}, checks);
    add_check(op->buffer, op->indices, BoundsAccess::kStore, op->span, {}, checks);
    return checks.before(self);
  }

  Stmt mutate_let(const LetNode* op, const Stmt& self) override {
    Checks checks(op->span);
    collect(op->value, {}, checks);
    Stmt body = mutate(op->body);
    auto n = copy_node(op);
    n->body = body;
    return checks.before(body.same_as(op->body) ? self : Stmt(n));
  }

  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Checks checks(op->span);
    collect(op->begin, {}, checks);
    collect(op->end, {}, checks);
    Stmt body = mutate(op->body);
    auto n = copy_node(op);
    n->body = body;
    return checks.before(body.same_as(op->body) ? self : Stmt(n));
  }

  Stmt mutate_if(const IfNode* op, const Stmt& self) override {
    Checks checks(op->span);
    collect(op->cond, {}, checks);
    Stmt then_case = mutate(op->then_case);
    Stmt else_case = op->else_case ? mutate(op->else_case) : Stmt();
    auto n = copy_node(op);
    n->then_case = then_case;
    n->else_case = else_case;
    bool same = then_case.same_as(op->then_case) && else_case.same_as(op->else_case);
    return checks.before(same ? self : Stmt(n));
  }

  Stmt mutate_allocate(const AllocateNode* op, const Stmt& self) override {
    Checks checks(op->span);
    if (op->init) collect(*op->init, {}, checks);
    Stmt body = mutate(op->body);
    auto n = copy_node(op);
    n->body = body;
    return checks.before(body.same_as(op->body) ? self : Stmt(n));
  }

  Stmt mutate_evaluate(const EvaluateNode* op, const Stmt& self) override {
    if (as_barrier(op->value) || as_bounds_call(op->value)) return self;
    Checks checks(op->span);
    collect(op->value, {}, checks);
    return checks.before(self);
  }

  Stmt mutate_kernel(const KernelNode* op, const Stmt& self) override {
    Stmt body = mutate(op->body);
    // Each block first looks whether another one already failed; after the leading
    // allocations, which the CPU's block binder hoists out of the block loop.
    std::vector<const AllocateNode*> leading;
    Stmt inner = body;
    while (auto* a = inner.as<AllocateNode>()) {
      leading.push_back(a);
      inner = a->body;
    }
    inner = seq({evaluate(bounds_stop_if_failed(), op->span), inner});
    for (size_t i = leading.size(); i-- > 0;) {
      auto n = copy_node(leading[i]);
      n->body = inner;
      inner = Stmt(n);
    }
    auto n = copy_node(op);
    n->body = inner;
    return Stmt(n);
  }

  Stmt mutate_copy(const CopyNode*, const Stmt&) override { unlowered("T.copy"); }
  Stmt mutate_fill(const FillNode*, const Stmt&) override { unlowered("T.fill"); }
  Stmt mutate_gemm(const GemmNode*, const Stmt&) override { unlowered("T.gemm"); }
  Stmt mutate_reduce(const ReduceNode*, const Stmt&) override { unlowered("T.reduce"); }

 private:
  // The checks of one statement, in evaluation order, and the place they report
  // when an access carries no position of its own.
  struct Checks {
    explicit Checks(Span s) : span(s) {}
    Span span;
    std::vector<Stmt> stmts;
    Stmt before(const Stmt& s) const {
      if (stmts.empty()) return s;
      std::vector<Stmt> all = stmts;
      all.push_back(s);
      return seq(std::move(all));
    }
  };

  [[noreturn]] static void unlowered(const char* what) {
    throw IRError(
        fmt::format("bounds_check: {} is still a tile operation; the bounds-check pass runs after "
                    "lower_tile_ops, which turns tile operations into element accesses",
                    what));
  }

  // Checks for every access `e` evaluates, under `path` (the condition under which e is
  // evaluated at all; undefined: always).
  void collect(const Expr& e, const Expr& path, Checks& checks) {
    if (!e) return;
    Collector(*this).dispatch_expr(e, path, checks);
  }

  void add_check(const Buffer& buffer, const std::vector<Expr>& indices, BoundsAccess access,
                 Span span, const Expr& path, Checks& checks) {
    if (buffer->scope == StorageScope::kVar) return;  // a scalar, no index
    if (int(indices.size()) != buffer->ndim()) {
      throw IRError(fmt::format(
          "bounds_check: an access to '{}' has {} indices for its {} dimensions; the pass "
          "runs before flatten_buffers, on one index per dimension",
          buffer->name, indices.size(), buffer->ndim()));
    }
    Expr in_range;
    for (size_t d = 0; d < indices.size(); ++d) {
      const Expr& i = indices[d];
      Expr dim = logical_and(make_zero(i.dtype()) <= i, i < buffer->shape[d]);
      in_range = in_range.defined() ? logical_and(in_range, dim) : dim;
    }
    if (!in_range.defined()) return;  // a 0-D buffer has one element
    Span where = span.known() ? span : checks.span;
    checks.stmts.push_back(
        if_then_else(both(path, logical_not(in_range)),
                     evaluate(bounds_violation(access, buffer, indices, where), where), {}, where));
  }

  // collect() of one node kind; recursion goes back through collect().
  class Collector final : public ExprFunctor<void(const Expr& path, Checks& checks)> {
   public:
    explicit Collector(BoundsChecker& outer) : outer_(outer) {}

   private:
    void collect(const Expr& e, const Expr& path, Checks& checks) {
      outer_.collect(e, path, checks);
    }
    void add_check(const Buffer& buffer, const std::vector<Expr>& indices, BoundsAccess access,
                   Span span, const Expr& path, Checks& checks) {
      outer_.add_check(buffer, indices, access, span, path, checks);
    }
    void visit_expr(const IntImmNode*, const Expr&, const Expr& path, Checks& checks) override {}
    void visit_expr(const FloatImmNode*, const Expr&, const Expr& path, Checks& checks) override {}
    void visit_expr(const VarNode*, const Expr&, const Expr& path, Checks& checks) override {}
    void visit_expr(const LoadNode* l, const Expr&, const Expr& path, Checks& checks) override {
      for (const auto& i : l->indices) collect(i, path, checks);
      add_check(l->buffer, l->indices, BoundsAccess::kLoad, l->span, path, checks);
    }
    void visit_expr(const SelectNode* s, const Expr&, const Expr& path, Checks& checks) override {
      collect(s->cond, path, checks);
      collect(s->true_value, both(path, s->cond), checks);
      collect(s->false_value, both(path, logical_not(s->cond)), checks);
    }
    void visit_expr(const BinaryNode* b, const Expr&, const Expr& path, Checks& checks) override {
      collect(b->a, path, checks);
      if (b->op == BinaryOp::kAnd) return collect(b->b, both(path, b->a), checks);
      if (b->op == BinaryOp::kOr) return collect(b->b, both(path, logical_not(b->a)), checks);
      return collect(b->b, path, checks);
    }
    void visit_expr(const UnaryNode* op, const Expr&, const Expr& path, Checks& checks) override {
      return collect(op->a, path, checks);
    }
    void visit_expr(const CastNode* op, const Expr&, const Expr& path, Checks& checks) override {
      return collect(op->value, path, checks);
    }
    void visit_expr(const CallNode* c, const Expr&, const Expr& path, Checks& checks) override {
      if (c->call_kind == CallKind::kAtomic) {
        // The element is read and written in one step: checked as a store.
        auto* element = c->args[0].as<LoadNode>();
        for (const auto& i : element->indices) collect(i, path, checks);
        collect(c->args[1], path, checks);
        add_check(element->buffer, element->indices, BoundsAccess::kStore, c->span, path, checks);
        return;
      }
      for (const auto& a : c->args) collect(a, path, checks);
    }

    BoundsChecker& outer_;
  };
};

}  // namespace

void register_bounds_check_config_key() {
  register_pass_config_key(
      kBoundsCheckConfigKey, PassConfigType::kBool, false,
      "check every index of every tensor, shared and fragment access in the compiled kernel; "
      "the first one outside its shape fails the call with the kernel's file:line:col, the "
      "tensor, the index and the shape, before the element is touched");
}

bool bounds_check_enabled(const PassContext& context) {
  // Set values were validated against the declared bool type; unset means the default.
  auto it = context.config().find(kBoundsCheckConfigKey);
  return it != context.config().end() && std::get<bool>(it->second);
}

bool is_bounds_checked(const PrimFunc& func) {
  auto it = func->attrs.find(kBoundsCheckedAttr);
  return it != func->attrs.end() && it->second == AttrValue(true);
}

PrimFunc insert_bounds_checks(const PrimFunc& func) {
  try {
    Stmt body = BoundsChecker().mutate(func->body);
    return with_attr(with_body(func, body), kBoundsCheckedAttr, true);
  } catch (const IRError& error) {
    throw IRError(fmt::format("in function '{}': {}", func->name, error.what()));
  }
}

Pass bounds_check_pass() {
  register_bounds_check_config_key();
  return Pass{"tilec.bounds_check", [](const IRModule& mod, const PassInfo& info) {
                if (!bounds_check_enabled(info.context)) return mod;
                std::vector<PrimFunc> functions;
                for (const auto& f : mod.functions()) functions.push_back(insert_bounds_checks(f));
                return IRModule(std::move(functions), mod.attrs());
              }};
}

}  // namespace tilec::transform
