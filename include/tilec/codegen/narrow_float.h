// Narrow floats (float16, bfloat16, float8_e4m3, float8_e5m2) in C-family device code:
// stored as their bits, loaded into float, rounded back after every operation. Each has a
// helper family named by its suffix -- tilec_<s>_to_f32, tilec_f32_to_<s>, tilec_round_<s>
// -- emitted by the preamble section of the same name, so CodeGenC and its subclasses
// (OpenCL, CUDA) print one spelling and each supplies its section's text.
#pragma once

#include "tilec/ir/dtype.h"

#include <string>

namespace tilec::codegen {

// "f16", "bf16", "f8e4m3" or "f8e5m2"; throws for a dtype that is not a narrow float.
std::string narrow_float_suffix(ir::DataType t);

// Integers up to this magnitude are exact in `t` (2^(mantissa bits + 1)).
double narrow_float_exact_integer_limit(ir::DataType t);

// How a C dialect spells what the software float8 conversions need.
struct Float8Dialect {
  std::string qualifiers;  // before each function: "static inline", "static __device__ ..."
  std::string to_bits;     // "{}" -> the uint32_t bits of a float expression
  std::string from_bits;   // "{}" -> the float whose bits are a uint32_t expression
  std::string rint;        // round to nearest integer, ties to even: "rintf", "rint"
};

// The section text for float8 dtype `t`: round to nearest-even, gradual underflow,
// saturation to the largest finite value, NaN -> 0x7F, exactly as ir::double_to_float8.
std::string float8_helper_source(ir::DataType t, const Float8Dialect& dialect);

}  // namespace tilec::codegen
