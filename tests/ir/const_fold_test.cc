#include "tilec/ir/const_fold.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tilec::ir {
namespace {

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

int64_t value_of(BinaryOp op, int64_t a, int64_t b, DataType t) {
  auto r = int_binary(op, a, b, t);
  EXPECT_TRUE(r.has_value());
  return r ? r->value : 0;
}

TEST(ConstFold, DivisionAndModuloByZeroAreNotFolded) {
  for (DataType t : {DataType::Int32(), DataType::Int64(), DataType::UInt(8), DataType::UInt(64)}) {
    EXPECT_EQ(int_binary(BinaryOp::kFloorDiv, 7, 0, t), std::nullopt) << t.str();
    EXPECT_EQ(int_binary(BinaryOp::kFloorMod, 7, 0, t), std::nullopt) << t.str();
  }
  EXPECT_EQ(fold_binary(BinaryOp::kFloorDiv, Expr(7), Expr(0)), std::nullopt);
  // `/` is never built on integers, so it has no integer value to fold to.
  EXPECT_EQ(int_binary(BinaryOp::kDiv, 7, 2, DataType::Int32()), std::nullopt);
}

TEST(ConstFold, FloorDivisionAndModuloRoundTowardMinusInfinity) {
  DataType t = DataType::Int32();
  EXPECT_EQ(value_of(BinaryOp::kFloorDiv, -7, 2, t), -4);
  EXPECT_EQ(value_of(BinaryOp::kFloorMod, -7, 2, t), 1);
  EXPECT_EQ(value_of(BinaryOp::kFloorDiv, 7, -2, t), -4);
  EXPECT_EQ(value_of(BinaryOp::kFloorMod, 7, -2, t), -1);
  EXPECT_EQ(value_of(BinaryOp::kFloorDiv, -7, -2, t), 3);
  EXPECT_EQ(value_of(BinaryOp::kFloorMod, -7, -2, t), -1);
  EXPECT_EQ(value_of(BinaryOp::kFloorMod, 6, -3, t), 0);
  EXPECT_EQ(value_of(BinaryOp::kFloorMod, 5, -1, DataType::Int64()), 0);
}

TEST(ConstFold, IntegerResultsWrapAndReportOverflow) {
  auto i32max = int64_t(std::numeric_limits<int32_t>::max());
  auto r = int_binary(BinaryOp::kAdd, i32max, 1, DataType::Int32());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, std::numeric_limits<int32_t>::min());
  EXPECT_TRUE(r->overflowed);

  r = int_binary(BinaryOp::kMul, kI64Max, 2, DataType::Int64());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, -2);
  EXPECT_TRUE(r->overflowed);

  r = int_binary(BinaryOp::kFloorDiv, kI64Min, -1, DataType::Int64());  // wraps, as hardware
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, kI64Min);
  EXPECT_TRUE(r->overflowed);

  r = int_binary(BinaryOp::kSub, -128, 1, DataType::Int(8));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, 127);
  EXPECT_TRUE(r->overflowed);

  r = int_binary(BinaryOp::kAdd, 250, 10, DataType::UInt(8));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, 4);
  EXPECT_TRUE(r->overflowed);

  r = int_binary(BinaryOp::kAdd, 2, 3, DataType::Int32());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, 5);
  EXPECT_FALSE(r->overflowed);
}

TEST(ConstFold, Uint64OperandsAreTheirUnsignedValues) {
  DataType u64 = DataType::UInt(64);
  // 2^64 - 1 travels as -1.
  EXPECT_EQ(value_of(BinaryOp::kGT, -1, 1, u64), 1);
  EXPECT_EQ(value_of(BinaryOp::kMax, -1, 1, u64), -1);
  EXPECT_EQ(value_of(BinaryOp::kFloorDiv, -1, 2, u64), kI64Max);
  EXPECT_EQ(value_of(BinaryOp::kFloorMod, kI64Min, -1, u64), kI64Min);  // 2^63 % (2^64 - 1)
  auto r = int_binary(BinaryOp::kMul, -1, -1, u64);  // (2^64 - 1)^2 wraps to 1
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, 1);
  EXPECT_TRUE(r->overflowed);
  EXPECT_EQ(value_of(BinaryOp::kLT, -1, 1, DataType::Int64()), 1);  // signed: -1 < 1
}

TEST(ConstFold, ComparisonsAndLogicGiveBool) {
  EXPECT_EQ(value_of(BinaryOp::kAnd, 1, 0, DataType::Bool()), 0);
  EXPECT_EQ(value_of(BinaryOp::kOr, 1, 0, DataType::Bool()), 1);
  auto folded = fold_binary(BinaryOp::kLE, Expr(3), Expr(3));
  ASSERT_TRUE(folded);
  EXPECT_EQ(folded->dtype(), DataType::Bool());
  EXPECT_EQ(folded->as<IntImmNode>()->value, 1);
}

TEST(ConstFold, FloatResultsRoundToTheirDtype) {
  DataType f16 = DataType::Float16();
  EXPECT_EQ(float_binary(BinaryOp::kAdd, 2048.0, 1.0, f16), 2048.0);  // tie: to even
  EXPECT_EQ(float_binary(BinaryOp::kAdd, 2048.0, 3.0, f16), 2052.0);  // tie: to even
  EXPECT_EQ(float_binary(BinaryOp::kAdd, 1.0, 0.0004, f16), 1.0);
  EXPECT_EQ(float_binary(BinaryOp::kMul, 60000.0, 2.0, f16), INFINITY);
  EXPECT_EQ(float_binary(BinaryOp::kAdd, 0.1, 0.2, DataType::Float32()), double(0.1f + 0.2f));
  EXPECT_EQ(float_binary(BinaryOp::kAdd, 0.1, 0.2, DataType::Float(64)), 0.1 + 0.2);
  EXPECT_EQ(float_binary(BinaryOp::kAdd, 1.0, 1.0 / 512, DataType::BFloat16()), 1.0);
}

TEST(ConstFold, FloatFloorDivisionModuloAndIeeeCases) {
  DataType f32 = DataType::Float32();
  EXPECT_EQ(float_binary(BinaryOp::kFloorDiv, -7.0, 2.0, f32), -4.0);
  EXPECT_EQ(float_binary(BinaryOp::kFloorMod, -7.0, 2.0, f32), 1.0);
  EXPECT_EQ(float_binary(BinaryOp::kFloorMod, 7.0, -2.0, f32), -1.0);
  EXPECT_EQ(float_binary(BinaryOp::kDiv, 1.0, 0.0, f32), INFINITY);
  EXPECT_TRUE(std::isnan(float_binary(BinaryOp::kDiv, 0.0, 0.0, f32)));
  EXPECT_EQ(float_binary(BinaryOp::kMin, NAN, 3.0, f32), 3.0);  // fmin: NaN loses
  EXPECT_EQ(float_binary(BinaryOp::kLT, 1.0, 2.0, f32), 1.0);
}

TEST(ConstFold, FoldBinaryNeedsTwoConstantsOfOneDtype) {
  EXPECT_EQ(fold_binary(BinaryOp::kAdd, make_var("x"), Expr(1)), std::nullopt);
  EXPECT_EQ(fold_binary(BinaryOp::kAdd, Expr(1), make_int(1, DataType::Int64())), std::nullopt);
  auto sum = fold_binary(BinaryOp::kAdd, make_float(1.5, DataType::Float32()),
                         make_float(2.25, DataType::Float32()));
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->dtype(), DataType::Float32());
  EXPECT_EQ(sum->as<FloatImmNode>()->value, 3.75);
  auto wrapped = fold_binary(BinaryOp::kMul, make_int(200, DataType::UInt(8)),
                             make_int(2, DataType::UInt(8)));
  ASSERT_TRUE(wrapped);
  EXPECT_EQ(wrapped->as<IntImmNode>()->value, 144);
}

}  // namespace
}  // namespace tilec::ir
