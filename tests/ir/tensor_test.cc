#include "tilec/ir/tensor.h"

#include "tilec/ir/expr.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tilec::ir {
namespace {

TEST(HostTensor, StartsZeroedAlignedAndConvertsOnSet) {
  HostTensor t(DataType::Float16(), {2, 3});
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(t.get(i), 0.0);
  t.set(4, 0.1);
  EXPECT_EQ(t.get(4), 0.0999755859375);  // nearest float16
  EXPECT_THROW(t.get(6), IRError);
  EXPECT_THROW(HostTensor(DataType::Float32(), {-1}), IRError);
  EXPECT_THROW(HostTensor(DataType::Float32().with_lanes(4), {2}), IRError);
  EXPECT_THROW(HostTensor(DataType::Float32(), {int64_t(1) << 40, int64_t(1) << 40}), IRError);
  HostTensor copy = t;
  copy.set(4, 1.0);
  EXPECT_EQ(t.get(4), 0.0999755859375);  // deep copy
}

TEST(ElementConversion, IntegersWrapAndFloatsTruncate) {
  HostTensor t(DataType::Int(8), {3});
  t.set(0, 300);   // wraps like a two's-complement store
  t.set(1, -2.7);  // truncates toward zero
  t.set(2, NAN);
  EXPECT_EQ(t.get(0), 44);
  EXPECT_EQ(t.get(1), -2);
  EXPECT_EQ(t.get(2), 0);
  EXPECT_EQ(wrap_to_dtype(255, DataType::Int(8)), -1);
  EXPECT_EQ(wrap_to_dtype(-1, DataType::UInt(16)), 65535);
  EXPECT_EQ(wrap_to_dtype(7, DataType::Bool()), 1);
  HostTensor u(DataType::UInt(64), {1});
  write_int(u.data(), u.dtype(), 0, -1);
  EXPECT_EQ(u.get(0), 18446744073709551615.0);
}

TEST(FillRandom, DeterministicPerSeedAndInRange) {
  HostTensor a(DataType::Float32(), {1000}), b(DataType::Float32(), {1000});
  HostTensor c(DataType::Float32(), {1000});
  fill_random(a.view(), 42);
  fill_random(b.view(), 42);
  fill_random(c.view(), 43);
  EXPECT_EQ(tensor_checksum(a.view()), tensor_checksum(b.view()));
  EXPECT_NE(tensor_checksum(a.view()), tensor_checksum(c.view()));
  double lo = 1, hi = -1;
  for (int64_t i = 0; i < 1000; ++i) {
    lo = std::min(lo, a.get(i));
    hi = std::max(hi, a.get(i));
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9);  // actually spread over the range
  EXPECT_GT(hi, 0.9);
  HostTensor ints(DataType::Int32(), {500});
  fill_random(ints.view(), 7);
  for (int64_t i = 0; i < 500; ++i) {
    EXPECT_GE(ints.get(i), -8);
    EXPECT_LE(ints.get(i), 8);
  }
}

TEST(CompareTensors, AppliesPerDtypeTolerances) {
  HostTensor expected(DataType::Float32(), {4}), actual(DataType::Float32(), {4});
  for (int i = 0; i < 4; ++i) expected.set(i, 100.0 * (i + 1));
  actual = expected;
  actual.set(1, 200.0 * (1 + 0.5e-4));  // within rtol 1e-4
  CompareResult ok = compare_tensors(actual.view(), expected.view());
  EXPECT_TRUE(ok.ok) << ok.first_mismatch;
  EXPECT_NEAR(ok.max_abs_err, 0.01, 1e-4);
  actual.set(2, 300.0 * (1 + 2e-4));  // outside
  CompareResult bad = compare_tensors(actual.view(), expected.view());
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.mismatches, 1);
  EXPECT_NE(bad.first_mismatch.find("[2]"), std::string::npos) << bad.first_mismatch;

  HostTensor h1(DataType::Float16(), {1}), h2(DataType::Float16(), {1});
  h1.set(0, 1.0);
  h2.set(0, 1.015);  // |diff| ~0.015 <= 0.01 + 0.01 * 1
  EXPECT_TRUE(compare_tensors(h2.view(), h1.view()).ok);
  h2.set(0, 1.03);
  EXPECT_FALSE(compare_tensors(h2.view(), h1.view()).ok);

  HostTensor i1(DataType::Int32(), {2}), i2(DataType::Int32(), {2});
  i2.set(1, 1);
  EXPECT_FALSE(compare_tensors(i2.view(), i1.view()).ok);  // integers are exact
}

TEST(CompareTensors, NaNInfinityShapeAndDtype) {
  HostTensor a(DataType::Float32(), {2}), b(DataType::Float32(), {2});
  a.set(0, NAN);
  b.set(0, NAN);
  a.set(1, INFINITY);
  b.set(1, INFINITY);
  EXPECT_TRUE(compare_tensors(a.view(), b.view()).ok);
  b.set(1, -INFINITY);
  EXPECT_FALSE(compare_tensors(a.view(), b.view()).ok);
  b.set(1, INFINITY);
  b.set(0, 0.0);
  EXPECT_FALSE(compare_tensors(a.view(), b.view()).ok);  // NaN only matches NaN
  HostTensor c(DataType::Float32(), {3});
  CompareResult shape = compare_tensors(a.view(), c.view());
  EXPECT_FALSE(shape.ok);
  EXPECT_NE(shape.first_mismatch.find("float32[3]"), std::string::npos);
  EXPECT_FALSE(compare_tensors(HostTensor(DataType::Float16(), {2}).view(),
                               HostTensor(DataType::Float32(), {2}).view())
                   .ok);
}

TEST(TensorChecksum, DependsOnContentShapeAndDtype) {
  HostTensor a(DataType::Float32(), {2, 2}), b(DataType::Float32(), {4});
  EXPECT_NE(tensor_checksum(a.view()), tensor_checksum(b.view()));
  HostTensor c(DataType::Int32(), {2, 2});
  EXPECT_NE(tensor_checksum(a.view()), tensor_checksum(c.view()));
  uint64_t before = tensor_checksum(a.view());
  a.set(3, 1.0);
  EXPECT_NE(tensor_checksum(a.view()), before);
}

}  // namespace
}  // namespace tilec::ir
