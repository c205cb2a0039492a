#include "tilec/ir/visitor.h"

#include "tilec/ir/function.h"

#include <gtest/gtest.h>

#include <set>

namespace tilec::ir {
namespace {

// A kernel touching every statement kind a visitor must reach.
struct Sample {
  Var n = make_var("n");
  Buffer a = make_buffer("A", {Expr(n)}, DataType::Float32());
  Buffer s = make_buffer("S", {Expr(8)}, DataType::Float32(), StorageScope::kShared);
  Var bx = make_var("bx"), i = make_var("i"), t = make_var("t");
  Stmt body;
  Sample() {
    Stmt loop = for_loop(i, Expr(0), Expr(8), store(s, {Expr(i)}, load(s, {Expr(i)}) + Expr(1.0)),
                         ForKind::kParallel);
    Stmt inner = seq({copy(TileRegion{a, {RegionDim{bx * Expr(8), {}}}}, TileRegion{s, {}}), loop,
                      let(t, bx + Expr(1), evaluate(t)),
                      copy(TileRegion{s, {}}, TileRegion{a, {RegionDim{bx * Expr(8), {}}}})});
    auto kernel = std::make_shared<KernelNode>();
    kernel->grid = {ceildiv(n, Expr(8))};
    kernel->block_vars = {bx};
    kernel->threads = {128};
    kernel->body = allocate(s, inner);
    body = Stmt(kernel);
  }
};

class VarCollector : public StmtVisitor {
 public:
  std::set<std::string> vars, buffers;
  int stores = 0;

 protected:
  void visit_var(const VarNode* op) override { vars.insert(op->name); }
  void visit_buffer_use(const Buffer& b) override { buffers.insert(b->name); }
  void visit_store(const StoreNode* op) override {
    ++stores;
    StmtVisitor::visit_store(op);
  }
};

TEST(StmtVisitor, ReachesEveryVariableAndBufferIncludingRegionsAndGrid) {
  Sample k;
  VarCollector c;
  c.visit(k.body);
  EXPECT_EQ(c.vars, (std::set<std::string>{"n", "bx", "i", "t"}));
  EXPECT_EQ(c.buffers, (std::set<std::string>{"A", "S"}));
  EXPECT_EQ(c.stores, 1);
}

TEST(StmtVisitor, UndefinedHandlesAreSkipped) {
  VarCollector c;
  c.visit(Stmt());
  c.visit(Expr());
  c.visit(if_then_else(make_bool(true), evaluate(Expr(1))));  // no else branch
  EXPECT_TRUE(c.vars.empty());
}

TEST(PostOrderVisit, ChildrenComeBeforeParents) {
  Var x = make_var("x");
  Expr e = (x + Expr(1)) * Expr(2);
  std::vector<ExprKind> order;
  post_order_visit(e, [&](const Expr& sub) { order.push_back(sub.kind()); });
  ASSERT_EQ(order.size(), 5u);
  EXPECT_EQ(order.front(), ExprKind::kVar);
  EXPECT_EQ(order.back(), ExprKind::kBinary);

  Sample k;
  int stmts = 0, kernels_last = 0;
  post_order_visit(k.body, [&](const Stmt* s, const Expr* ex) {
    EXPECT_TRUE((s == nullptr) != (ex == nullptr));
    if (s) {
      ++stmts;
      kernels_last = s->kind() == StmtKind::kKernel ? stmts : kernels_last;
    }
  });
  EXPECT_EQ(kernels_last, stmts);  // the root is reported last
}

}  // namespace
}  // namespace tilec::ir
