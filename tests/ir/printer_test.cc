// Printer: minimal parentheses, canonical spellings, re-merged T.Parallel nests,
// scoped renaming of clashing names, and readable lowered forms.
#include "tilec/ir/printer.h"
#include "tilec/ir/builder.h"

#include <gtest/gtest.h>

namespace tilec::ir {
namespace {

TEST(Printer, MinimalParenthesesByPrecedence) {
  Var a = make_var("a"), b = make_var("b"), c = make_var("c");
  EXPECT_EQ(print((a + b) * c), "(a + b) * c");
  EXPECT_EQ(print(a + b * c), "a + b * c");
  EXPECT_EQ(print(a - (b - c)), "a - (b - c)");
  EXPECT_EQ(print((a - b) - c), "a - b - c");
  EXPECT_EQ(print(-(a + b)), "-(a + b)");
  EXPECT_EQ(print(floordiv(a, b) * c), "a // b * c");
  EXPECT_EQ(print(a * floormod(b, c)), "a * (b % c)");
  EXPECT_EQ(print(logical_and(a < b, logical_or(b < c, eq(a, c)))), "a < b and (b < c or a == c)");
  EXPECT_EQ(print(eq(a < b, b < c)), "(a < b) == (b < c)");
  EXPECT_EQ(print(logical_not(a < b)), "not a < b");
}

TEST(Printer, CanonicalSpellings) {
  Var n = make_var("n");
  Var x = make_var("x", DataType::Float16());
  EXPECT_EQ(print(ceildiv(n, Expr(64))), "T.ceildiv(n, 64)");
  EXPECT_EQ(print(max(n, Expr(0))), "T.max(n, 0)");
  EXPECT_EQ(print(x * Expr(2)), "x * 2");  // the literal re-derives float16 from x
  EXPECT_EQ(print(make_float(0.5, DataType::Float16())), "T.float16(0.5)");
  EXPECT_EQ(print(make_int(3, DataType::Int64())), "T.int64(3)");
  EXPECT_EQ(print(make_float(2.0)), "2.0");
  EXPECT_EQ(print(-infinity(DataType::Float32())), "-T.infinity(\"float32\")");
  EXPECT_EQ(print(cast(DataType::Float32(), n)), "T.cast(n, \"float32\")");
  EXPECT_EQ(print(select(n < 1, x, x)), "T.if_then_else(n < 1, x, x)");
  EXPECT_EQ(print(call("exp", {x})), "T.exp(x)");
  EXPECT_EQ(print(make_bool(true)), "True");
}

TEST(Printer, ParallelNestsVarsAndRenaming) {
  PrimFuncBuilder f("k");
  auto A = f.tensor("A", {8, 8}, DataType::Float32());
  f.kernel(1, 32, [&](Var) {
    auto acc = f.alloc_var("acc", DataType::Float32());
    f.parallel(8, 8, [&](Var i, Var j) { f.store(A(i, j), acc.value()); });
    f.serial(8, [&](Var i) {
      f.serial(
          8, [&](Var inner) { f.assign(acc, acc.value() + A(i, inner)); }, "i");
    });
  });
  std::string text = print(f.build());
  EXPECT_NE(text.find("for i, j in T.Parallel(8, 8):\n"), std::string::npos) << text;
  EXPECT_NE(text.find("A[i, j] = acc\n"), std::string::npos) << text;
  // Two different variables named i in nested scopes print as i and i_1.
  EXPECT_NE(text.find("for i_1 in T.serial(8):\n"), std::string::npos) << text;
  EXPECT_NE(text.find("acc += A[i, i_1]\n"), std::string::npos) << text;
}

TEST(Printer, LoweredFormsAreReadable) {
  Var n = make_var("n");
  auto launch = std::make_shared<LaunchNode>();
  launch->callee = "main_kernel";
  launch->grid = {ceildiv(n, Expr(128))};
  launch->threads = {128};
  launch->args = {n};
  EXPECT_EQ(print(Stmt(launch)),
            "T.launch(\"main_kernel\", grid=(T.ceildiv(n, 128),), threads=(128,), args=(n,))\n");
  Var t = make_var("tx");
  auto bound = copy_node(
      for_loop(t, Expr(0), Expr(128), evaluate(t), ForKind::kThreadBinding).as<ForNode>());
  bound->thread_tag = "threadIdx.x";
  EXPECT_EQ(print(Stmt(bound)),
            "for tx in T.thread_binding(128, thread=\"threadIdx.x\"):\n    T.evaluate(tx)\n");
  EXPECT_EQ(print(seq({})), "pass\n");
}

}  // namespace
}  // namespace tilec::ir
