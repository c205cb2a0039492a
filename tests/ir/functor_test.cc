// ExprFunctor/StmtFunctor: one hook per node kind, extra arguments passed through, and a
// functor that leaves a kind out cannot be instantiated.
#include "tilec/ir/functor.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

namespace tilec::ir {
namespace {

// The depth of an expression tree, plus `base`.
class Depth final : public ExprFunctor<int(int base)> {
  int visit_expr(const IntImmNode*, const Expr&, int base) override { return base + 1; }
  int visit_expr(const FloatImmNode*, const Expr&, int base) override { return base + 1; }
  int visit_expr(const VarNode*, const Expr&, int base) override { return base + 1; }
  int visit_expr(const BinaryNode* op, const Expr&, int base) override {
    return std::max(dispatch_expr(op->a, base + 1), dispatch_expr(op->b, base + 1));
  }
  int visit_expr(const UnaryNode* op, const Expr&, int base) override {
    return dispatch_expr(op->a, base + 1);
  }
  int visit_expr(const SelectNode* op, const Expr&, int base) override {
    return dispatch_expr(op->cond, base + 1);
  }
  int visit_expr(const CastNode* op, const Expr&, int base) override {
    return dispatch_expr(op->value, base + 1);
  }
  int visit_expr(const LoadNode*, const Expr&, int base) override { return base + 1; }
  int visit_expr(const CallNode*, const Expr&, int base) override { return base + 1; }
};

TEST(ExprFunctor, DispatchesOnKindAndPassesArguments) {
  Var x = make_var("x");
  Depth depth;
  EXPECT_EQ(depth.dispatch_expr(Expr(3), 0), 1);
  EXPECT_EQ(depth.dispatch_expr(x + Expr(1), 0), 2);
  EXPECT_EQ(depth.dispatch_expr(-(x * (x + Expr(1))), 10), 14);
}

// Names each statement kind; `self` is the handle dispatched on.
class Name final : public StmtFunctor<std::string(const Stmt* expected)> {
  std::string check(const Stmt& self, const Stmt* expected, const char* name) {
    EXPECT_TRUE(self.same_as(*expected));
    return name;
  }
  std::string visit_stmt(const StoreNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "store");
  }
  std::string visit_stmt(const LetNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "let");
  }
  std::string visit_stmt(const ForNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "for");
  }
  std::string visit_stmt(const IfNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "if");
  }
  std::string visit_stmt(const WhileNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "while");
  }
  std::string visit_stmt(const SeqNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "seq");
  }
  std::string visit_stmt(const AllocateNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "allocate");
  }
  std::string visit_stmt(const EvaluateNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "evaluate");
  }
  std::string visit_stmt(const KernelNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "kernel");
  }
  std::string visit_stmt(const CopyNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "copy");
  }
  std::string visit_stmt(const FillNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "fill");
  }
  std::string visit_stmt(const GemmNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "gemm");
  }
  std::string visit_stmt(const ReduceNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "reduce");
  }
  std::string visit_stmt(const LaunchNode*, const Stmt& s, const Stmt* e) override {
    return check(s, e, "launch");
  }
};

TEST(StmtFunctor, ReachesTheHookOfEachKind) {
  Buffer a = make_buffer("A", {Expr(8)}, DataType::Float32());
  Var i = make_var("i");
  Stmt st = store(a, {Expr(i)}, Expr(1.0));
  Name name;
  auto of = [&](const Stmt& s) { return name.dispatch_stmt(s, &s); };
  EXPECT_EQ(of(st), "store");
  EXPECT_EQ(of(let(i, Expr(1), st)), "let");
  EXPECT_EQ(of(for_loop(i, Expr(0), Expr(8), st)), "for");
  EXPECT_EQ(of(if_then_else(Expr(i) < Expr(3), st)), "if");
  EXPECT_EQ(of(while_loop(Expr(i) < Expr(3), st)), "while");
  EXPECT_EQ(of(seq({st, st})), "seq");
  EXPECT_EQ(of(allocate(a, st)), "allocate");
  EXPECT_EQ(of(evaluate(Expr(i))), "evaluate");
  EXPECT_EQ(of(Stmt(std::make_shared<KernelNode>())), "kernel");
  EXPECT_EQ(of(copy(TileRegion{a, {}}, TileRegion{a, {}})), "copy");
  EXPECT_EQ(of(fill(TileRegion{a, {}}, Expr(0.0))), "fill");
  EXPECT_EQ(of(Stmt(std::make_shared<GemmNode>())), "gemm");
  EXPECT_EQ(of(Stmt(std::make_shared<ReduceNode>())), "reduce");
  EXPECT_EQ(of(Stmt(std::make_shared<LaunchNode>())), "launch");
}

// A functor that handles every kind but one stays abstract: it cannot be instantiated,
// which is what makes a new node kind a compile error at every functor.
class MissingCall : public ExprFunctor<int()> {
  int visit_expr(const IntImmNode*, const Expr&) override { return 0; }
  int visit_expr(const FloatImmNode*, const Expr&) override { return 0; }
  int visit_expr(const VarNode*, const Expr&) override { return 0; }
  int visit_expr(const BinaryNode*, const Expr&) override { return 0; }
  int visit_expr(const UnaryNode*, const Expr&) override { return 0; }
  int visit_expr(const SelectNode*, const Expr&) override { return 0; }
  int visit_expr(const CastNode*, const Expr&) override { return 0; }
  int visit_expr(const LoadNode*, const Expr&) override { return 0; }
};
static_assert(std::is_abstract_v<MissingCall>);
static_assert(!std::is_abstract_v<Depth>);
static_assert(std::is_abstract_v<StmtFunctor<void()>>);

}  // namespace
}  // namespace tilec::ir
