// The two float8 formats, bit-exact. float8_e4m3 is OCP's E4M3 as TVM and TileLang's
// float8_e4m3fn: bias 7, no infinities, 0x7F/0xFF the only NaNs, largest finite 448.
// float8_e5m2 is OCP's E5M2: bias 15, IEEE-like infinities and NaNs, largest finite 57344.
// Conversion to float8 rounds to nearest, ties to even, with gradual underflow; a value
// whose magnitude is at least the largest finite one (infinities included) saturates to
// it, and NaN becomes 0x7F. That is CUDA's __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...),
// which cuda_fp8.h's __nv_fp8_e4m3/__nv_fp8_e5m2 constructors (and so TileLang's CUDA
// code) use. Decoding is exact.
#pragma once

#include "tilec/ir/dtype.h"

#include <cstdint>

namespace tilec::ir {

// `dtype` must be float8_e4m3 or float8_e5m2.
uint8_t double_to_float8(double value, DataType dtype);
double float8_to_double(uint8_t bits, DataType dtype);

// Largest finite value of a float8 dtype (448 or 57344).
double float8_max(DataType dtype);

}  // namespace tilec::ir
