#include "tilec/ir/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace tilec::ir {
namespace {

TEST(Float16, ExactValuesRoundTrip) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);  // largest finite
  EXPECT_EQ(float_to_half(0.0f), 0x0000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
  // Every finite half survives half -> float -> half.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7C00) == 0x7C00) continue;
    ASSERT_EQ(float_to_half(half_to_float(uint16_t(bits))), bits) << std::hex << bits;
  }
}

TEST(Float16, RoundsToNearestTiesToEven) {
  // Between 1.0 (0x3C00) and the next half 1 + 2^-10 (0x3C01).
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3C00);             // tie -> even (down)
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3C02);         // tie -> even (up)
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01);  // above the tie
  // Rounding the mantissa up carries into the exponent.
  EXPECT_EQ(float_to_half(2.0f - 0x1p-12f), 0x4000);
}

TEST(Float16, OverflowInfinityAndNaN) {
  EXPECT_EQ(float_to_half(65519.0f), 0x7BFF);  // below the halfway point to 2^16
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);  // the tie rounds to even = infinity
  EXPECT_EQ(float_to_half(1e10f), 0x7C00);
  EXPECT_EQ(float_to_half(-INFINITY), 0xFC00);
  EXPECT_TRUE(std::isinf(half_to_float(0x7C00)));
  uint16_t nan = float_to_half(NAN);
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(half_to_float(nan)));
}

TEST(Float16, Subnormals) {
  EXPECT_EQ(float_to_half(0x1p-24f), 0x0001);  // smallest subnormal
  EXPECT_EQ(half_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(float_to_half(0x1p-25f), 0x0000);             // tie -> even (zero)
  EXPECT_EQ(float_to_half(3 * 0x1p-25f), 0x0002);         // tie -> even (two)
  EXPECT_EQ(float_to_half(0x1p-14f - 0x1p-25f), 0x0400);  // rounds up to the smallest normal
  EXPECT_EQ(half_to_float(0x03FF), 1023 * 0x1p-24f);
}

TEST(BFloat16, ConversionsMatchTheTopHalfOfFloat32WithRNE) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3F80);
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(float_to_bfloat16(1.0f + 0x1p-8f), 0x3F80);      // tie -> even (down)
  EXPECT_EQ(float_to_bfloat16(1.0f + 3 * 0x1p-8f), 0x3F82);  // tie -> even (up)
  EXPECT_EQ(float_to_bfloat16(INFINITY), 0x7F80);
  EXPECT_EQ(float_to_bfloat16(3.4e38f), 0x7F80);  // above the largest bfloat16: overflow
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(NAN))));
  // Subnormal bfloat16 values are float32 subnormals with a zero low half.
  float tiny = 0x1p-133f;
  uint32_t bits;
  std::memcpy(&bits, &tiny, 4);
  EXPECT_EQ(float_to_bfloat16(tiny), bits >> 16);
  EXPECT_EQ(bfloat16_to_float(uint16_t(bits >> 16)), tiny);
}

// `count` doubles with random significands and exponents in [min_exp, max_exp],
// alternating in sign: the inputs of the rounding cross-checks below.
std::vector<double> random_doubles(uint64_t seed, int min_exp, int max_exp, int count) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> exponent(min_exp, max_exp);
  std::uniform_real_distribution<double> significand(1.0, 2.0);
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    double v = std::ldexp(significand(rng), exponent(rng));
    out.push_back(i & 1 ? -v : v);
  }
  return out;
}

// The encoders round with integer arithmetic on the double's bits; the compiler's own
// _Float16 conversion (libgcc's correctly rounded __truncdfhf2) is the oracle, on
// random doubles over the whole half range and past it, and on every tie between two
// neighbouring halves.
#ifdef __FLT16_MAX__
TEST(Float16, DoubleConversionMatchesTheCompilersFloat16) {
  for (double v : random_doubles(33, -30, 17, 200000)) {
    ASSERT_EQ(double_to_half(v), std::bit_cast<uint16_t>(static_cast<_Float16>(v))) << v;
  }
  for (uint32_t bits = 0; bits < 0x7C00; ++bits) {
    double low = half_to_float(uint16_t(bits)), high = half_to_float(uint16_t(bits + 1));
    for (double v : {(low + high) / 2, std::nextafter((low + high) / 2, 0.0),
                     std::nextafter((low + high) / 2, 1e9)}) {
      ASSERT_EQ(double_to_half(v), std::bit_cast<uint16_t>(static_cast<_Float16>(v)))
          << std::hex << bits << " " << v;
    }
  }
}
#endif

// bfloat16 is the top half of a float32, rounded to nearest even: for a float input
// that is (bits + 0x7FFF + lowest kept bit) >> 16, checked on every 97th float.
TEST(BFloat16, FloatConversionMatchesRoundingTheFloat32Bits) {
  for (uint64_t bits = 0; bits < 0x7F800000; bits += 97) {
    float v = std::bit_cast<float>(uint32_t(bits));
    uint32_t expected = (uint32_t(bits) + 0x7FFF + ((bits >> 16) & 1)) >> 16;
    ASSERT_EQ(float_to_bfloat16(v), expected) << std::hex << bits;
    ASSERT_EQ(float_to_bfloat16(-v), expected | 0x8000) << std::hex << bits;
  }
}

TEST(RoundToDtype, SingleRoundingFromDouble) {
  // 1 + 2^-11 + 2^-40 rounds up in float16; through float32 first it would tie-round down.
  double v = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(round_to_dtype(v, DataType::Float16()), 1.0 + 0x1p-10);
  EXPECT_EQ(round_to_dtype(0.1, DataType::Float32()), double(0.1f));
  EXPECT_EQ(round_to_dtype(0.1, DataType::Float(64)), 0.1);
  EXPECT_TRUE(std::isinf(round_to_dtype(1e39, DataType::Float32())));
  EXPECT_EQ(round_to_dtype(3.1, DataType::Int32()), 3.1);  // not a float dtype: unchanged
}

// round_to_dtype takes an in-place rounding for values that stay normal; it must agree
// with encode-then-decode everywhere, subnormals and overflow included.
TEST(RoundToDtype, AgreesWithEncodingAndDecodingAcrossTheRange) {
  for (double v : random_doubles(35, -140, 130, 400000)) {
    double half = half_to_float(double_to_half(v));
    double bf16 = bfloat16_to_float(double_to_bfloat16(v));
    ASSERT_EQ(std::bit_cast<uint64_t>(round_to_dtype(v, DataType::Float16())),
              std::bit_cast<uint64_t>(half))
        << v;
    ASSERT_EQ(std::bit_cast<uint64_t>(round_to_dtype(v, DataType::BFloat16())),
              std::bit_cast<uint64_t>(bf16))
        << v;
  }
  for (double v : {65504.0, 65519.99, 65520.0, 0x1p-14, 0x1p-14 - 0x1p-30, 0x1.FEp127, 0x1.FFp127,
                   0x1p-126, -0.0}) {
    EXPECT_EQ(std::bit_cast<uint64_t>(round_to_dtype(v, DataType::Float16())),
              std::bit_cast<uint64_t>(double(half_to_float(double_to_half(v)))))
        << v;
    EXPECT_EQ(std::bit_cast<uint64_t>(round_to_dtype(v, DataType::BFloat16())),
              std::bit_cast<uint64_t>(double(bfloat16_to_float(double_to_bfloat16(v)))))
        << v;
  }
}

// The inline per-element paths (float16.h) agree bit for bit with the out-of-line ones:
// every half decoded, every tie between neighbouring halves and its neighbours, and
// random doubles across both formats' ranges, subnormals and overflow included.
TEST(Float16, InlinePathsAgreeWithTheOutOfLineOnes) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double inline_value = half_to_double_inline(uint16_t(bits));
    double value = half_to_float(uint16_t(bits));
    if (std::isnan(value)) {
      ASSERT_TRUE(std::isnan(inline_value)) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(std::bit_cast<uint64_t>(inline_value), std::bit_cast<uint64_t>(value))
        << std::hex << bits;
  }
  std::vector<double> values = random_doubles(37, -140, 130, 400000);
  for (uint32_t bits = 0; bits < 0x7C00; ++bits) {
    double low = half_to_float(uint16_t(bits)), high = half_to_float(uint16_t(bits + 1));
    double tie = (low + high) / 2;
    for (double v : {low, tie, std::nextafter(tie, 0.0), std::nextafter(tie, 1e9)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  for (uint32_t bits = 0; bits < 0x7F80; ++bits) {  // the same around every bfloat16 tie
    double low = bfloat16_to_float(uint16_t(bits)), high = bfloat16_to_float(uint16_t(bits + 1));
    double tie = (low + high) / 2;
    for (double v : {tie, std::nextafter(tie, 0.0), std::nextafter(tie, 1e300)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  for (double v :
       {0.0, -0.0, 65504.0, 65519.99, 65520.0, 0x1p-14, 0x1p-24, 0x1p-25, 0x1.8p-25, 0x1p-126,
        0x1p-133, 0x1p-134, 0x1.FEp127, 0x1.FFp127, double(INFINITY), double(-INFINITY), 1e-320}) {
    values.push_back(v);
    values.push_back(-v);
  }
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double inline_value = bfloat16_to_double_inline(uint16_t(bits));
    double value = bfloat16_to_float(uint16_t(bits));
    if (std::isnan(value)) {
      ASSERT_TRUE(std::isnan(inline_value)) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(std::bit_cast<uint64_t>(inline_value), std::bit_cast<uint64_t>(value))
        << std::hex << bits;
  }
  for (double v : values) {
    ASSERT_EQ(double_to_half_inline(v), double_to_half(v)) << v;
    ASSERT_EQ(double_to_bfloat16_inline(v), double_to_bfloat16(v)) << v;
    for (DataType t :
         {DataType::Float16(), DataType::BFloat16(), DataType::Float32(), DataType::Float(64)}) {
      ASSERT_EQ(std::bit_cast<uint64_t>(round_to_dtype_inline(v, t)),
                std::bit_cast<uint64_t>(round_to_dtype(v, t)))
          << v << " " << t.str();
    }
  }
}

}  // namespace
}  // namespace tilec::ir
