// IEEE float16 and bfloat16 conversions, bit-exact: conversion to the 16-bit formats
// rounds to nearest, ties to even, with overflow to infinity, gradual underflow
// (subnormals) and NaN kept NaN (quiet, sign kept). round_to_dtype() rounds a value
// to what a float dtype can hold; it is how "every operation rounds to its dtype"
// (docs/semantics.md) is carried out by the interpreter.
#pragma once

#include "tilec/ir/dtype.h"

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

// The nearest value of float dtype `dtype` (float16, bfloat16, float8_*, float32, float64;
// float8 saturates, see float8.h);
// other dtypes return value unchanged.
double round_to_dtype(double value, DataType dtype);

}  // namespace tilec::ir
