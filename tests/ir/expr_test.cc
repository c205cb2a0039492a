#include "tilec/ir/function.h"

#include <gtest/gtest.h>

namespace tilec::ir {
namespace {

TEST(ExprTyping, LiteralAdoptsOtherOperandType) {
  Var x = make_var("x", DataType::Float16());
  Expr e = x + Expr(1);
  EXPECT_EQ(e.dtype(), DataType::Float16());
  auto* b = e.as<BinaryNode>();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->b.dtype(), DataType::Float16());
}

TEST(ExprTyping, IntWithFloatPromotesToFloat) {
  Var i = make_var("i", DataType::Int32());
  Var f = make_var("f", DataType::Float32());
  EXPECT_EQ((i + f).dtype(), DataType::Float32());
  EXPECT_EQ((i + Expr(2.5)).dtype(), DataType::Float32());
}

TEST(ExprTyping, IntegerTrueDivisionIsRejectedWithHint) {
  Var i = make_var("i");
  try {
    (void)(i / Expr(2));
    FAIL() << "expected IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("//"), std::string::npos);
  }
}

TEST(ExprTyping, WiderIntegerWins) {
  Var a = make_var("a", DataType::Int32());
  Var b = make_var("b", DataType::Int64());
  EXPECT_EQ((a * b).dtype(), DataType::Int64());
  EXPECT_EQ((a < b).dtype(), DataType::Bool());
}

TEST(DataTypeText, RoundTrips) {
  for (const char* s : {"bool", "int8", "int64", "uint32", "float16", "bfloat16", "float64",
                        "float32x4"}) {
    auto t = DataType::parse(s);
    ASSERT_TRUE(t) << s;
    EXPECT_EQ(t->str(), s);
  }
  EXPECT_FALSE(DataType::parse("float17"));
}

TEST(IRModuleValue, WithFunctionLeavesOriginalUnchanged) {
  auto f = make_prim_func("main", {}, evaluate(Expr(0)));
  IRModule a({f});
  IRModule b = a.with_function(make_prim_func("other", {}, evaluate(Expr(1))));
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(b.size(), 2u);
  EXPECT_THROW(a.lookup("other"), IRError);
}

}  // namespace
}  // namespace tilec::ir
