// simplify: constant folding with integer wrap-around, identities, bound-proven
// comparisons, dead branches; nothing it cannot prove changes.
#include "tilec/transform/simplify.h"

#include "tilec/ir/printer.h"

#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using namespace ir;

TEST(Simplify, FoldsIntegerConstantsWithFloorSemantics) {
  EXPECT_TRUE(is_const_int(simplify(floordiv(Expr(-7), Expr(2))), -4));
  EXPECT_TRUE(is_const_int(simplify(floormod(Expr(-7), Expr(2))), 1));
  EXPECT_TRUE(is_const_int(simplify(floormod(Expr(7), Expr(-2))), -1));
  EXPECT_TRUE(is_const_int(simplify(Expr(6) * Expr(7) + Expr(1)), 43));
}

TEST(Simplify, WrapsToTheDtypeWidth) {
  Expr big = make_int(2147483647) + make_int(1);
  EXPECT_TRUE(is_const_int(simplify(big), -2147483648LL));
  Expr small = make_int(200, DataType::Int(8)) + make_int(100, DataType::Int(8));
  EXPECT_TRUE(is_const_int(simplify(small), 44));
}

TEST(Simplify, DropsIdentitiesOnIntegersButNotFloatZeroAdds) {
  Var x = make_var("x");
  EXPECT_TRUE(simplify(x + Expr(0)).same_as(x));
  EXPECT_TRUE(simplify(x * Expr(1)).same_as(x));
  EXPECT_TRUE(is_const_int(simplify(x * Expr(0)), 0));
  EXPECT_TRUE(simplify(floordiv(x, Expr(1))).same_as(x));
  Var f = make_var("f", DataType::Float32());
  // -0.0 + 0.0 is +0.0: the add must stay.
  EXPECT_FALSE(simplify(f + Expr(0.0)).same_as(f));
  EXPECT_TRUE(simplify(f * Expr(1.0)).same_as(f));
}

TEST(Simplify, ReassociatesConstantOffsets) {
  Var x = make_var("x");
  Expr e = simplify((x + Expr(3)) + Expr(4));
  auto* add = e.as<BinaryNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->a.same_as(x));
  EXPECT_TRUE(is_const_int(add->b, 7));
}

TEST(Simplify, DifferencesOfTheSameBaseAreConstants) {
  // The extent of a slice h * g:(h + 1) * g with g = 1 is 1 (TileLang's NSA with groups=1).
  Var h = make_var("h");
  EXPECT_TRUE(is_const_int(simplify((h + Expr(1)) * Expr(1) - h * Expr(1)), 1));
  EXPECT_TRUE(is_const_int(simplify((h + Expr(5)) - (h + Expr(2))), 3));
  EXPECT_TRUE(is_const_int(simplify(h - (h - Expr(4))), 4));
  EXPECT_TRUE(is_const_int(simplify(h - h), 0));
  // Other bases, and floats (where x - x may be NaN), are left alone.
  Var k = make_var("k");
  EXPECT_EQ(simplify((h + Expr(1)) - k).as<IntImmNode>(), nullptr);
  Var f = make_var("f", DataType::Float32());
  EXPECT_EQ(simplify(f - f).as<FloatImmNode>(), nullptr);
}

TEST(Simplify, DecidesComparisonsFromLoopBounds) {
  Var i = make_var("i"), n = make_var("n");
  VarBounds bounds{{i.get(), {0, 15}}};
  EXPECT_TRUE(is_const_int(simplify(i < Expr(16), bounds), 1));
  EXPECT_TRUE(is_const_int(simplify(i >= Expr(0), bounds), 1));
  EXPECT_TRUE(is_const_int(simplify(i > Expr(20), bounds), 0));
  // Unknown n: the comparison stays.
  EXPECT_EQ(simplify(i < n, bounds).kind(), ExprKind::kBinary);
}

TEST(Simplify, BoundsOfFloorOperations) {
  Var x = make_var("x");
  IntBounds m = bounds_of(floormod(x, Expr(8)), {});
  EXPECT_EQ(m.min, 0);
  EXPECT_EQ(m.max, 7);
  VarBounds bounds{{x.get(), {0, 99}}};
  IntBounds d = bounds_of(floordiv(x, Expr(10)), bounds);
  EXPECT_EQ(d.min, 0);
  EXPECT_EQ(d.max, 9);
  EXPECT_FALSE(bounds_of(x - Expr(1), {}).non_negative());
}

TEST(Simplify, RemovesDeadBranchesAndEmptyLoops) {
  Buffer a = make_buffer("A", {Expr(4)}, DataType::Float32());
  Var i = make_var("i");
  Stmt write = store(a, {i}, Expr(1.0));
  Stmt loop = for_loop(i, Expr(0), Expr(4), if_then_else(i < Expr(4), write));
  Stmt s = simplify(loop);
  auto* f = s.as<ForNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->body.kind(), StmtKind::kStore);
  Stmt empty = simplify(for_loop(make_var("j"), Expr(3), Expr(3), write));
  ASSERT_NE(empty.as<SeqNode>(), nullptr);
  EXPECT_TRUE(empty.as<SeqNode>()->stmts.empty());
}

}  // namespace
}  // namespace tilec::transform
