// IEEE float16 and bfloat16 conversions, bit-exact: conversion to the 16-bit formats
// rounds to nearest, ties to even, with overflow to infinity, gradual underflow
// (subnormals) and NaN kept NaN (quiet, sign kept). round_to_dtype() rounds a value
// to what a float dtype can hold; it is how "every operation rounds to its dtype"
// (docs/semantics.md) is carried out by the interpreter.
#pragma once

#include "tilec/ir/dtype.h"

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>

namespace tilec::ir {

uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);
uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(uint16_t bits);

// The code, without sign, of a positive finite `a` rounded (nearest, ties to even) to a
// binary format with `mantissa_bits` fraction bits and smallest normal exponent
// `min_exp` (bias 1 - min_exp): exponent field << mantissa_bits | fraction, subnormals
// included. Integer arithmetic only; a value too large for the format gives a code at
// or past its all-ones exponent field, which the caller turns into infinity or
// saturation (float16.cc, float8.cc).
uint64_t round_to_narrow_code(double a, int mantissa_bits, int min_exp);

// From double directly (a single rounding; going through float would round twice).
uint16_t double_to_half(double value);
uint16_t double_to_bfloat16(double value);

// `value` rounded (nearest, ties to even) to `mantissa_bits` fraction bits, for a value
// whose rounding stays a normal number of the narrow format (the caller checks the
// range): add just under half a unit of the kept last bit plus the lowest kept bit
// (ties to even) and clear the dropped bits; a carry runs into the exponent as it
// should. Inline: it is the interpreter's per-operation path.
inline double round_normal_in_place(double value, int mantissa_bits) {
  int dropped = 52 - mantissa_bits;
  uint64_t bits = std::bit_cast<uint64_t>(value);
  bits += ((uint64_t(1) << (dropped - 1)) - 1) + ((bits >> dropped) & 1);
  return std::bit_cast<double>(bits & ~((uint64_t(1) << dropped) - 1));
}

// Rounding a value below a format's smallest normal: its quantum is fixed (2^-24 for
// float16, 2^-133 for bfloat16), and adding then subtracting 2^52 quanta rounds to it,
// nearest even, in the double's own arithmetic (exact: no fast-math reassociation).
inline double round_subnormal_in_place(double magnitude, double quantum) {
  double shift = quantum * 0x1p52;
  return (magnitude + shift) - shift;
}

// double_to_half, half_to_float and their bfloat16 twins with the finite values inline (the
// interpreter's per-element loads and stores); infinities, NaN and overflow take the out-of-line
// path.
inline uint16_t double_to_half_inline(double value) {
  double a = value < 0 ? -value : value;
  if (!(a <= 65504.0)) return double_to_half(value);
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (a < 0x1p-14) return sign | uint16_t(round_subnormal_in_place(a, 0x1p-24) * 0x1p24);
  uint64_t bits = std::bit_cast<uint64_t>(round_normal_in_place(a, 10));
  return sign | uint16_t(((((bits >> 52) - 1023 + 15) << 10) | ((bits >> 42) & 0x3FF)));
}
inline uint16_t double_to_bfloat16_inline(double value) {
  double a = value < 0 ? -value : value;
  if (!(a <= 0x1.FEp127)) return double_to_bfloat16(value);
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (a < 0x1p-126) return sign | uint16_t(round_subnormal_in_place(a, 0x1p-133) * 0x1p133);
  uint64_t bits = std::bit_cast<uint64_t>(round_normal_in_place(a, 7));
  return sign | uint16_t(((((bits >> 52) - 1023 + 127) << 7) | ((bits >> 45) & 0x7F)));
}
// A bfloat16 is the top half of a float32: finite values widen by a shift.
inline double bfloat16_to_double_inline(uint16_t bits) {
  if ((bits & 0x7F80) == 0x7F80) return bfloat16_to_float(bits);
  return std::bit_cast<float>(uint32_t(bits) << 16);
}
inline double half_to_double_inline(uint16_t bits) {
  unsigned exp_field = (bits >> 10) & 0x1F;
  if (exp_field == 0x1F) return half_to_float(bits);
  double magnitude = exp_field == 0
                         ? double(bits & 0x3FF) * 0x1p-24
                         : std::bit_cast<double>((uint64_t(exp_field - 15 + 1023) << 52) |
                                                 (uint64_t(bits & 0x3FF) << 42));
  return bits & 0x8000 ? -magnitude : magnitude;
}

// The nearest value of float dtype `dtype` (float16, bfloat16, float8_*, float32, float64;
// float8 saturates, see float8.h);
// other dtypes return value unchanged.
double round_to_dtype(double value, DataType dtype);

// round_to_dtype with the common cases inline (float64, float32 in range, finite
// float16 and bfloat16 results short of overflow): every operation of the interpreter
// rounds through it.
inline double round_to_dtype_inline(double value, DataType dtype) {
  double a = std::fabs(value);
  if (dtype.code == TypeCode::kFloat) {
    if (dtype.bits == 64) return value;
    if (dtype.bits == 32 && a <= FLT_MAX) return double(float(value));
    if (dtype.bits == 16 && a <= 65504.0) {
      if (a >= 0x1p-14) return round_normal_in_place(value, 10);
      return std::copysign(round_subnormal_in_place(a, 0x1p-24), value);
    }
  } else if (dtype.code == TypeCode::kBFloat && a <= 0x1.FEp127) {
    if (a >= 0x1p-126) return round_normal_in_place(value, 7);
    return std::copysign(round_subnormal_in_place(a, 0x1p-133), value);
  }
  return round_to_dtype(value, dtype);
}

}  // namespace tilec::ir
