#include "tilec/ir/float16.h"

#include "tilec/ir/float8.h"

#include <algorithm>
#include <bit>
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
  double smallest_normal = std::bit_cast<double>(uint64_t(f.min_exp + 1023) << 52);
  double largest =
      std::bit_cast<double>((uint64_t(f.max_exp + 1023) << 52) |
                            (((uint64_t(1) << f.mantissa_bits) - 1) << (52 - f.mantissa_bits)));
  if (a >= smallest_normal && a <= largest) {
    // Stays normal: round in place, then the fields are the double's, rebiased.
    uint64_t bits = std::bit_cast<uint64_t>(round_normal_in_place(a, f.mantissa_bits));
    uint64_t exp_field = (bits >> 52) - 1023 + uint64_t(f.max_exp);
    uint64_t fraction = (bits >> (52 - f.mantissa_bits)) & ((uint64_t(1) << f.mantissa_bits) - 1);
    return sign | uint16_t((exp_field << f.mantissa_bits) | fraction);
  }
  uint64_t code = round_to_narrow_code(a, f.mantissa_bits, f.min_exp);
  return code >= inf ? sign | inf : sign | uint16_t(code);
}

// Built from the bits (no ldexp): this is on the interpreter's per-element path.
double decode(uint16_t bits, const Format& f) {
  bool negative = bits & 0x8000;
  int exp_field = (bits & 0x7FFF) >> f.mantissa_bits;
  uint64_t mantissa = bits & ((1u << f.mantissa_bits) - 1);
  int max_field = f.max_exp * 2 + 1;
  if (exp_field == max_field) {
    double special = mantissa ? std::nan("") : INFINITY;
    return negative ? -special : special;
  }
  uint64_t magnitude;
  if (exp_field == 0) {
    // Subnormal: mantissa * 2^(min_exp - mantissa_bits), exact in a double.
    double unit = std::bit_cast<double>(uint64_t(f.min_exp - f.mantissa_bits + 1023) << 52);
    double v = double(mantissa) * unit;
    return negative ? -v : v;
  }
  magnitude = (uint64_t(exp_field - f.max_exp + 1023) << 52) | (mantissa << (52 - f.mantissa_bits));
  return std::bit_cast<double>(magnitude | (uint64_t(negative) << 63));
}

}  // namespace

uint64_t round_to_narrow_code(double a, int mantissa_bits, int min_exp) {
  uint64_t bits = std::bit_cast<uint64_t>(a);
  int exp_field = int(bits >> 52);
  uint64_t significand = bits & ((uint64_t(1) << 52) - 1);
  int exponent = -1022;  // a double subnormal: significand * 2^(-1074)
  if (exp_field != 0) {
    significand |= uint64_t(1) << 52;
    exponent = exp_field - 1023;
  }
  // a = significand * 2^(exponent - 52); the result keeps mantissa_bits fraction bits
  // at exponent e, so the significand loses `shift` bits (at least 52 - mantissa_bits).
  int e = std::max(exponent, min_exp);
  int shift = 52 - mantissa_bits + (e - exponent);
  uint64_t q = 0;
  if (shift < 64) {
    q = significand >> shift;
    uint64_t rest = significand & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) ++q;
  }
  // Normal results have q in [2^m, 2^(m+1)]: adding (e - min_exp) << m puts the
  // exponent field at e - min_exp + 1 with the implicit bit absorbed, and q == 2^(m+1)
  // carries into the next exponent by itself. Subnormal results (e == min_exp, q < 2^m)
  // are q itself, and q == 2^m is the smallest normal's code.
  return (uint64_t(e - min_exp) << mantissa_bits) + q;
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

namespace {

double round_to_format(double value, const Format& f, double smallest_normal, double largest) {
  double a = std::fabs(value);
  if (a >= smallest_normal && a <= largest) return round_normal_in_place(value, f.mantissa_bits);
  return decode(encode(value, f), f);
}

}  // namespace

double round_to_dtype(double value, DataType dtype) {
  if (dtype.code == TypeCode::kBFloat)
    return round_to_format(value, kBFloat16, 0x1p-126, 0x1.FEp127);
  if (dtype.is_float8()) return float8_to_double(double_to_float8(value, dtype), dtype);
  if (dtype.code != TypeCode::kFloat) return value;
  switch (dtype.bits) {
    case 16:
      return round_to_format(value, kHalf, 0x1p-14, 65504.0);
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
