// float8_e4m3 (OCP E4M3, TVM's e4m3fn) and float8_e5m2: every encoding decoded against the
// format's definition, every finite one round-tripped, every halfway case between
// neighbours, overflow (saturation) and NaN; the dtype's spellings and round_to_dtype.
#include "tilec/ir/float8.h"
#include "tilec/ir/float16.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tilec::ir {
namespace {

struct Format {
  DataType dtype;
  int mantissa_bits;
  int bias;
  double max;
};
const Format kE4M3{DataType::Float8E4M3(), 3, 7, 448.0};
const Format kE5M2{DataType::Float8E5M2(), 2, 15, 57344.0};

// The value of encoding `c` by the definition: (-1)^s 2^(e-bias) (1 + m/2^M), subnormals
// 2^(1-bias) m/2^M; e4m3 has no infinities and only S.1111.111 is NaN; e5m2 is IEEE-like.
double by_definition(uint8_t c, const Format& f) {
  int e = (c & 0x7F) >> f.mantissa_bits;
  int m = c & ((1 << f.mantissa_bits) - 1);
  double sign = (c & 0x80) ? -1 : 1;
  int max_e = (1 << (7 - f.mantissa_bits)) - 1;
  if (f.bias == 7 && e == max_e && m == (1 << f.mantissa_bits) - 1) return NAN;
  if (f.bias == 15 && e == max_e) return m ? NAN : sign * INFINITY;
  double frac = double(m) / (1 << f.mantissa_bits);
  if (e == 0) return sign * std::pow(2.0, 1 - f.bias) * frac;
  return sign * std::pow(2.0, e - f.bias) * (1 + frac);
}

bool finite_code(uint8_t c, const Format& f) {
  return std::isfinite(by_definition(c, f));
}

class Float8 : public ::testing::TestWithParam<Format> {};

TEST_P(Float8, EveryEncodingDecodesByTheDefinition) {
  const Format& f = GetParam();
  int nans = 0;
  for (int c = 0; c < 256; ++c) {
    double want = by_definition(uint8_t(c), f);
    double got = float8_to_double(uint8_t(c), f.dtype);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << c;
      ++nans;
    } else {
      EXPECT_EQ(got, want) << std::hex << c;
      EXPECT_EQ(std::signbit(got), (c & 0x80) != 0) << std::hex << c;
    }
  }
  EXPECT_EQ(nans, f.bias == 7 ? 2 : 6);  // e4m3: 0x7F, 0xFF; e5m2: 0x7D-0x7F, 0xFD-0xFF
  EXPECT_EQ(float8_max(f.dtype), f.max);
}

TEST_P(Float8, EveryFiniteEncodingRoundTripsThroughFloat32) {
  const Format& f = GetParam();
  for (int c = 0; c < 256; ++c) {
    if (!finite_code(uint8_t(c), f)) continue;
    float v = float(float8_to_double(uint8_t(c), f.dtype));
    EXPECT_EQ(double_to_float8(v, f.dtype), c) << std::hex << c;
  }
}

TEST_P(Float8, HalfwayCasesRoundToEvenAndNeighboursToNearest) {
  const Format& f = GetParam();
  for (int c = 0; c < 0x7F; ++c) {  // positive c and its successor c + 1
    if (!finite_code(uint8_t(c + 1), f)) break;
    double lo = float8_to_double(uint8_t(c), f.dtype);
    double hi = float8_to_double(uint8_t(c + 1), f.dtype);
    double mid = (lo + hi) / 2;
    uint8_t even = (c & 1) ? uint8_t(c + 1) : uint8_t(c);
    EXPECT_EQ(double_to_float8(mid, f.dtype), even) << std::hex << c;
    EXPECT_EQ(double_to_float8(-mid, f.dtype), even | 0x80) << std::hex << c;
    double eps = (hi - lo) / 64;
    EXPECT_EQ(double_to_float8(mid - eps, f.dtype), c) << std::hex << c;
    EXPECT_EQ(double_to_float8(mid + eps, f.dtype), c + 1) << std::hex << c;
  }
  // Below half the smallest subnormal: zero, keeping the sign.
  double tiny = std::pow(2.0, 1 - f.bias - f.mantissa_bits);
  EXPECT_EQ(double_to_float8(tiny / 2, f.dtype), 0x00);
  EXPECT_EQ(double_to_float8(-tiny / 3, f.dtype), 0x80);
  EXPECT_EQ(double_to_float8(tiny * 0.75, f.dtype), 0x01);
}

TEST_P(Float8, OverflowSaturatesAndNaNStaysNaN) {
  const Format& f = GetParam();
  uint8_t max_code = double_to_float8(f.max, f.dtype);
  EXPECT_EQ(float8_to_double(max_code, f.dtype), f.max);
  for (double v : {f.max * 1.01, f.max * 1.25, f.max * 2, 1e30, double(INFINITY)}) {
    EXPECT_EQ(double_to_float8(v, f.dtype), max_code) << v;
    EXPECT_EQ(double_to_float8(-v, f.dtype), max_code | 0x80) << v;
  }
  EXPECT_EQ(double_to_float8(NAN, f.dtype), 0x7F);
  EXPECT_EQ(double_to_float8(-NAN, f.dtype), 0x7F);
  EXPECT_TRUE(std::isnan(round_to_dtype(NAN, f.dtype)));
  EXPECT_EQ(round_to_dtype(1e9, f.dtype), f.max);
  EXPECT_EQ(round_to_dtype(-1e9, f.dtype), -f.max);
}

INSTANTIATE_TEST_SUITE_P(Formats, Float8, ::testing::Values(kE4M3, kE5M2),
                         [](const ::testing::TestParamInfo<Format>& info) {
                           return info.param.bias == 7 ? std::string("e4m3") : std::string("e5m2");
                         });

TEST(Float8Values, KnownEncodings) {
  DataType e4 = DataType::Float8E4M3(), e5 = DataType::Float8E5M2();
  EXPECT_EQ(double_to_float8(1.0, e4), 0x38);
  EXPECT_EQ(double_to_float8(448.0, e4), 0x7E);
  EXPECT_EQ(double_to_float8(464.0, e4), 0x7E);  // the tie above 448 rounds to even (448)
  EXPECT_EQ(double_to_float8(std::ldexp(1.0, -9), e4), 0x01);
  EXPECT_EQ(double_to_float8(-2.0, e4), 0xC0);
  EXPECT_EQ(double_to_float8(1.0, e5), 0x3C);
  EXPECT_EQ(double_to_float8(57344.0, e5), 0x7B);
  EXPECT_EQ(double_to_float8(61440.0, e5), 0x7B);  // a tie to "infinity" saturates
  EXPECT_EQ(double_to_float8(std::ldexp(1.0, -16), e5), 0x01);
  EXPECT_TRUE(std::isinf(float8_to_double(0x7C, e5)));
  EXPECT_TRUE(std::isnan(float8_to_double(0x7F, e4)));
}

TEST(Float8Values, ArithmeticRoundsToTheDtype) {
  DataType e4 = DataType::Float8E4M3();
  // 1.0 + 0.0625 is a tie between 1.0 and 1.125 in e4m3: to even, 1.0.
  EXPECT_EQ(round_to_dtype(1.0 + 0.0625, e4), 1.0);
  EXPECT_EQ(round_to_dtype(1.0 + 0.0626, e4), 1.125);
  EXPECT_EQ(round_to_dtype(300.0 * 2, e4), 448.0);
}

TEST(Float8Dtype, SpellingsParseAndPrint) {
  for (const char* s : {"float8_e4m3", "float8_e4m3fn", "e4m3_float8"}) {
    auto t = DataType::parse(s);
    ASSERT_TRUE(t) << s;
    EXPECT_EQ(*t, DataType::Float8E4M3()) << s;
  }
  for (const char* s : {"float8_e5m2", "e5m2_float8"}) {
    auto t = DataType::parse(s);
    ASSERT_TRUE(t) << s;
    EXPECT_EQ(*t, DataType::Float8E5M2()) << s;
  }
  EXPECT_EQ(DataType::Float8E4M3().str(), "float8_e4m3");
  EXPECT_EQ(DataType::Float8E5M2().str(), "float8_e5m2");
  EXPECT_EQ(DataType::Float8E4M3().bytes(), 1);
  EXPECT_TRUE(DataType::Float8E5M2().is_float());
  EXPECT_TRUE(DataType::Float8E5M2().is_narrow_float());
  EXPECT_FALSE(DataType::parse("float8_e4m3fnuz"));  // another format (bias 8, no -0)
  EXPECT_NE(std::string(supported_dtype_names()).find("float8_e5m2"), std::string::npos);
}

}  // namespace
}  // namespace tilec::ir
