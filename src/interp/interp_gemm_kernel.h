// The interpreter's T.gemm arithmetic on machine floats: C[m][n] += A[m][k] * B[k][n],
// each element summed over k in ascending order with one IEEE multiply and one add per
// step (no fused multiply-add), which is docs/semantics.md's float32/float64 gemm bit for
// bit. Lanes are independent elements, so vector registers change speed, not results:
// the block of 4 rows by one vector of columns is compiled for AVX-512 and AVX2 as well
// as the baseline, chosen once by what the CPU supports. The operands reach it through
// the run widenings of interp_widen.h.
#pragma once

#include <cstdint>

namespace tilec::interp {

// Rows and columns the arrays must be padded to (zeros in the padding).
inline constexpr int64_t kGemmRowBlock = 4;
template <typename F>
inline constexpr int64_t kGemmColBlock = int64_t(64 / sizeof(F));

// a: [m][k], b: [k][n], c: [m][n], row-major and dense; m a multiple of kGemmRowBlock and
// n of kGemmColBlock<F>. c holds the accumulators on entry and the sums on return.
void gemm_accumulate(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);
void gemm_accumulate(const double* a, const double* b, double* c, int64_t m, int64_t n, int64_t k);

}  // namespace tilec::interp
