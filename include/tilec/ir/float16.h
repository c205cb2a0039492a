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

// q rounded to an integer, ties to even (exact for any double): the rounding step of
// every narrow-float encoder (float16.cc, float8.cc).
double round_half_even(double q);

// From double directly (a single rounding; going through float would round twice).
uint16_t double_to_half(double value);
uint16_t double_to_bfloat16(double value);

// The nearest value of float dtype `dtype` (float16, bfloat16, float8_*, float32, float64;
// float8 saturates, see float8.h);
// other dtypes return value unchanged.
double round_to_dtype(double value, DataType dtype);

}  // namespace tilec::ir
