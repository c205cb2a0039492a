#include "tilec/ir/float16.h"

#include "tilec/ir/float8.h"

#include <cfloat>
#include <cmath>

namespace tilec::ir {
namespace {

// A binary16-like format: `mantissa_bits` stored fraction bits, exponents
// [min_exp, max_exp] for normal numbers, bias max_exp.
struct Format {
  int mantissa_bits;
  int min_exp;
  int max_exp;
  uint16_t quiet_nan;
};
constexpr Format kHalf{10, -14, 15, 0x7E00};
constexpr Format kBFloat16{7, -126, 127, 0x7FC0};

uint16_t encode(double value, const Format& f) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  uint16_t inf = uint16_t(((f.max_exp * 2 + 1) << f.mantissa_bits));
  if (std::isnan(value)) return sign | f.quiet_nan;
  double a = std::fabs(value);
  if (std::isinf(a)) return sign | inf;
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);
  int exponent = e - 1;  // a in [2^exponent, 2^(exponent+1))
  const double one = std::ldexp(1.0, f.mantissa_bits);
  if (exponent < f.min_exp) {
    // Subnormal: a multiple of 2^(min_exp - mantissa_bits). Rounding up to 2^m lands
    // exactly on the encoding of the smallest normal number.
    double q = round_half_even(std::ldexp(a, f.mantissa_bits - f.min_exp));
    return sign | uint16_t(q);
  }
  double q = round_half_even(std::ldexp(a, f.mantissa_bits - exponent));  // in [2^m, 2^(m+1)]
  if (q == 2 * one) {
    q = one;
    ++exponent;
  }
  if (exponent > f.max_exp) return sign | inf;
  return sign | uint16_t((exponent + f.max_exp) << f.mantissa_bits) | uint16_t(q - one);
}

double decode(uint16_t bits, const Format& f) {
  double sign = bits & 0x8000 ? -1.0 : 1.0;
  int exp_field = (bits & 0x7FFF) >> f.mantissa_bits;
  int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  int max_field = f.max_exp * 2 + 1;
  if (exp_field == max_field) {
    return mantissa ? std::copysign(std::nan(""), sign) : sign * INFINITY;
  }
  if (exp_field == 0) return sign * std::ldexp(double(mantissa), f.min_exp - f.mantissa_bits);
  return sign * std::ldexp(double(mantissa + (1 << f.mantissa_bits)),
                           exp_field - f.max_exp - f.mantissa_bits);
}

}  // namespace

// Exact: the fractional part of a double is computed without error.
double round_half_even(double q) {
  double floor_q = std::floor(q);
  double frac = q - floor_q;
  if (frac > 0.5) return floor_q + 1;
  if (frac < 0.5) return floor_q;
  return std::fmod(floor_q, 2.0) == 0 ? floor_q : floor_q + 1;
}

uint16_t float_to_half(float value) {
  return encode(value, kHalf);
}
float half_to_float(uint16_t bits) {
  return float(decode(bits, kHalf));
}
uint16_t float_to_bfloat16(float value) {
  return encode(value, kBFloat16);
}
float bfloat16_to_float(uint16_t bits) {
  return float(decode(bits, kBFloat16));
}
uint16_t double_to_half(double value) {
  return encode(value, kHalf);
}
uint16_t double_to_bfloat16(double value) {
  return encode(value, kBFloat16);
}

double round_to_dtype(double value, DataType dtype) {
  if (dtype.code == TypeCode::kBFloat) return decode(encode(value, kBFloat16), kBFloat16);
  if (dtype.is_float8()) return float8_to_double(double_to_float8(value, dtype), dtype);
  if (dtype.code != TypeCode::kFloat) return value;
  switch (dtype.bits) {
    case 16:
      return decode(encode(value, kHalf), kHalf);
    case 32: {
      // Out-of-range double-to-float conversion is undefined in C++; round by hand:
      // at or above FLT_MAX + half an ulp (2^128 - 2^103) the result is infinity.
      constexpr double kOverflow = 3.4028235677973366e38;
      if (std::fabs(value) >= kOverflow) return std::copysign(INFINITY, value);
      if (std::fabs(value) > FLT_MAX) return std::copysign(double(FLT_MAX), value);
      return double(float(value));
    }
    default:
      return value;
  }
}

}  // namespace tilec::ir
