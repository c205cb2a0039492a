#include "interp_gemm_kernel.h"

#include <cstring>

namespace tilec::interp {
namespace {

// One vector of 64 bytes: a register on AVX-512, two on AVX2, four on the baseline. Loaded
// and stored through memcpy (the arrays need no alignment); never passed by value, so
// no function's ABI depends on the ISA it is compiled for.
typedef float FloatVector __attribute__((vector_size(64)));
typedef double DoubleVector __attribute__((vector_size(64)));

// The 4-row block: four accumulator vectors live in registers over the whole k loop;
// each k step loads one vector of B and adds a[r][k] * it to row r, in ascending k.
template <typename F, typename V>
[[gnu::always_inline]] inline void accumulate_blocks(const F* a, const F* b, F* c, int64_t m,
                                                     int64_t n, int64_t k) {
  constexpr int64_t width = int64_t(sizeof(V) / sizeof(F));
  static_assert(width == kGemmColBlock<F> && kGemmRowBlock == 4);
  for (int64_t i = 0; i < m; i += 4) {
    const F* a0 = a + i * k;
    const F* a1 = a0 + k;
    const F* a2 = a1 + k;
    const F* a3 = a2 + k;
    for (int64_t j = 0; j < n; j += width) {
      F* c0 = c + i * n + j;
      V s0, s1, s2, s3;
      std::memcpy(&s0, c0, sizeof(V));
      std::memcpy(&s1, c0 + n, sizeof(V));
      std::memcpy(&s2, c0 + 2 * n, sizeof(V));
      std::memcpy(&s3, c0 + 3 * n, sizeof(V));
      const F* bp = b + j;
      for (int64_t p = 0; p < k; ++p, bp += n) {
        V bv;
        std::memcpy(&bv, bp, sizeof(V));
        s0 = s0 + a0[p] * bv;
        s1 = s1 + a1[p] * bv;
        s2 = s2 + a2[p] * bv;
        s3 = s3 + a3[p] * bv;
      }
      std::memcpy(c0, &s0, sizeof(V));
      std::memcpy(c0 + n, &s1, sizeof(V));
      std::memcpy(c0 + 2 * n, &s2, sizeof(V));
      std::memcpy(c0 + 3 * n, &s3, sizeof(V));
    }
  }
}

template <typename F>
using Kernel = void (*)(const F*, const F*, F*, int64_t, int64_t, int64_t);

void baseline_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
  accumulate_blocks<float, FloatVector>(a, b, c, m, n, k);
}
void baseline_f64(const double* a, const double* b, double* c, int64_t m, int64_t n, int64_t k) {
  accumulate_blocks<double, DoubleVector>(a, b, c, m, n, k);
}

#if defined(__x86_64__)
// The same source compiled for wider registers. The interpreter is built with
// -ffp-contract=off, so these ISAs' fused multiply-adds are never formed.
[[gnu::target("avx2")]] void avx2_f32(const float* a, const float* b, float* c, int64_t m,
                                      int64_t n, int64_t k) {
  accumulate_blocks<float, FloatVector>(a, b, c, m, n, k);
}
[[gnu::target("avx2")]] void avx2_f64(const double* a, const double* b, double* c, int64_t m,
                                      int64_t n, int64_t k) {
  accumulate_blocks<double, DoubleVector>(a, b, c, m, n, k);
}
[[gnu::target("avx512f")]] void avx512_f32(const float* a, const float* b, float* c, int64_t m,
                                           int64_t n, int64_t k) {
  accumulate_blocks<float, FloatVector>(a, b, c, m, n, k);
}
[[gnu::target("avx512f")]] void avx512_f64(const double* a, const double* b, double* c, int64_t m,
                                           int64_t n, int64_t k) {
  accumulate_blocks<double, DoubleVector>(a, b, c, m, n, k);
}
#endif

template <typename F>
Kernel<F> choose(Kernel<F> avx512, Kernel<F> avx2, Kernel<F> baseline) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) return avx512;
  if (__builtin_cpu_supports("avx2")) return avx2;
#endif
  (void)avx512, (void)avx2;
  return baseline;
}

}  // namespace

void gemm_accumulate(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
#if defined(__x86_64__)
  static const Kernel<float> kernel = choose<float>(avx512_f32, avx2_f32, baseline_f32);
#else
  static const Kernel<float> kernel = baseline_f32;
#endif
  kernel(a, b, c, m, n, k);
}

void gemm_accumulate(const double* a, const double* b, double* c, int64_t m, int64_t n, int64_t k) {
#if defined(__x86_64__)
  static const Kernel<double> kernel = choose<double>(avx512_f64, avx2_f64, baseline_f64);
#else
  static const Kernel<double> kernel = baseline_f64;
#endif
  kernel(a, b, c, m, n, k);
}

}  // namespace tilec::interp
