#include "tilec/ir/mutator.h"

#include "tilec/ir/visitor.h"

#include <gtest/gtest.h>

#include <set>

namespace tilec::ir {
namespace {

Stmt sample_kernel(Var n, Buffer a, Buffer s, Var bx, Var i) {
  Stmt loop = for_loop(i, Expr(0), Expr(8), store(s, {Expr(i)}, load(s, {Expr(i)}) * Expr(2.0)),
                       ForKind::kParallel);
  Stmt inner = seq({copy(TileRegion{a, {RegionDim{bx * Expr(8), {}}}}, TileRegion{s, {}}), loop,
                    copy(TileRegion{s, {}}, TileRegion{a, {RegionDim{bx * Expr(8), {}}}})});
  auto kernel = std::make_shared<KernelNode>();
  kernel->grid = {ceildiv(n, Expr(8))};
  kernel->block_vars = {bx};
  kernel->threads = {128};
  kernel->body = allocate(s, inner);
  return Stmt(kernel);
}

TEST(StmtMutator, IdentityMutationReturnsTheSameNode) {
  Var n = make_var("n"), bx = make_var("bx"), i = make_var("i");
  Buffer a = make_buffer("A", {Expr(n)}, DataType::Float32());
  Buffer s = make_buffer("S", {Expr(8)}, DataType::Float32(), StorageScope::kShared);
  Stmt body = sample_kernel(n, a, s, bx, i);
  StmtMutator identity;
  EXPECT_TRUE(identity.mutate(body).same_as(body));
  Expr e = load(a, {bx + Expr(1)});
  EXPECT_TRUE(identity.mutate(e).same_as(e));
}

TEST(Substitute, ReplacesVariablesAndRetypesConstants) {
  Var x = make_var("x"), y = make_var("y");
  Expr e = x * Expr(3) + y;
  Expr r = substitute(e, {{x.get(), make_int(5, DataType::Int64())}});
  EXPECT_EQ(r.dtype(), DataType::Int64());  // promotion re-applied to the new operand
  auto* add = r.as<BinaryNode>();
  ASSERT_NE(add, nullptr);
  auto* mul = add->a.as<BinaryNode>();
  ASSERT_NE(mul, nullptr);
  EXPECT_TRUE(is_const_int(mul->a, 5));
  EXPECT_TRUE(add->b.as<CastNode>() || add->b.same_as(y));
  // Untouched subtrees are shared, not copied.
  Expr untouched = substitute(e, {{make_var("z").get(), Expr(1)}});
  EXPECT_TRUE(untouched.same_as(e));
}

TEST(Substitute, RebuildsBuffersWhoseShapeMentionsTheVariableOnce) {
  Var n = make_var("n"), bx = make_var("bx"), i = make_var("i");
  Buffer a = make_buffer("A", {Expr(n)}, DataType::Float32());
  Buffer s = make_buffer("S", {Expr(8)}, DataType::Float32(), StorageScope::kShared);
  Stmt body = sample_kernel(n, a, s, bx, i);
  Stmt r = substitute(body, {{n.get(), Expr(64)}});
  ASSERT_FALSE(r.same_as(body));
  auto* kernel = r.as<KernelNode>();
  ASSERT_NE(kernel, nullptr);
  // Grid and every reference to A now use the constant; all references share one buffer.
  bool n_left = false;
  std::set<const BufferNode*> a_versions;
  struct Finder : StmtVisitor {
    bool* n_left;
    const VarNode* n;
    std::set<const BufferNode*>* a_versions;
    void visit_var(const VarNode* op) override { *n_left |= op == n; }
    void visit_buffer_use(const Buffer& b) override {
      if (b->name == "A") {
        a_versions->insert(b.get());
        for (const auto& d : b->shape) visit(d);
      }
    }
  } finder;
  finder.n_left = &n_left;
  finder.n = n.get();
  finder.a_versions = &a_versions;
  finder.visit(r);
  EXPECT_FALSE(n_left);
  ASSERT_EQ(a_versions.size(), 1u);
  EXPECT_TRUE(is_const_int((*a_versions.begin())->shape[0], 64));
  // The shared buffer's shape had no n, so it is kept as is.
  EXPECT_EQ(kernel->body.as<AllocateNode>()->buffer, s);
}

// A mutator that overrides one hook: doubles every integer constant.
class DoubleInts : public StmtMutator {
 protected:
  Expr mutate_int_imm(const IntImmNode* op, const Expr&) override {
    return make_int(op->value * 2, op->dtype);
  }
};

TEST(StmtMutator, OverriddenHookRebuildsOnlyTheChangedPath) {
  Var i = make_var("i");
  Buffer b = make_buffer("B", {Expr(4)}, DataType::Float32());
  Stmt s = for_loop(i, Expr(0), Expr(4), store(b, {Expr(i)}, make_float(1.5)));
  Stmt r = DoubleInts().mutate(s);
  auto* loop = r.as<ForNode>();
  ASSERT_NE(loop, nullptr);
  EXPECT_TRUE(is_const_int(loop->end, 8));
  EXPECT_TRUE(loop->var.same_as(i));                       // definitions are kept
  EXPECT_TRUE(loop->body.same_as(s.as<ForNode>()->body));  // no ints inside: shared
}

}  // namespace
}  // namespace tilec::ir
