// Contiguous runs of float16, bfloat16 or float32 elements widened to float without a
// branch per element, bit for bit what the interpreter's scalar conversions give for
// every finite value; T.gemm's operands and T.copy's rows into float32 use them.
#pragma once

#include <cstdint>

namespace tilec::interp {

// Widen `count` contiguous elements at `src` (float16, bfloat16 or float32 bits) to float
// into dst[0], dst[step], ...: each finite value exactly. False, with dst partly written,
// when the run holds an infinity or NaN; the caller converts that run element by element
// (whose NaNs come out as the scalar conversions make them).
bool widen_float16_run(const char* src, int64_t count, float* dst, int64_t step);
bool widen_bfloat16_run(const char* src, int64_t count, float* dst, int64_t step);
bool widen_float32_run(const char* src, int64_t count, float* dst, int64_t step);

}  // namespace tilec::interp
