/* The accuracy of glibc's libmvec float32 functions, the vector math the cpu targets
 * call in vectorized loops (docs/semantics.md, "Checking results"): for each function,
 * the largest error in ulp of its AVX-512 variant (_ZGVeN16v_NAMEf) against the double
 * function rounded to float, over every 61st float32 of the function's domain.
 *
 *   gcc -O2 -mavx512f bench/vector_math_ulp.c -o /tmp/ulp -lmvec -lm && /tmp/ulp
 *
 * Needs an AVX-512 x86-64 machine and glibc 2.35 or later. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define UNARY(name) __m512 _ZGVeN16v_##name##f(__m512);
#define BINARY(name) __m512 _ZGVeN16vv_##name##f(__m512, __m512);
UNARY(exp) UNARY(exp2) UNARY(expm1) UNARY(log) UNARY(log2) UNARY(log10) UNARY(log1p)
UNARY(tanh) UNARY(erf) UNARY(sin) UNARY(cos) UNARY(tan) UNARY(asin) UNARY(acos) UNARY(atan)
UNARY(sinh) UNARY(cosh) UNARY(asinh) UNARY(acosh) UNARY(atanh)
BINARY(pow) BINARY(atan2) BINARY(hypot)

typedef __m512 (*unary_vector)(__m512);
typedef double (*unary_double)(double);
typedef __m512 (*binary_vector)(__m512, __m512);
typedef double (*binary_double)(double, double);

static double ulp_of(float reference) {
  float a = fabsf(reference);
  if (a < 1.17549435e-38f) return ldexp(1.0, -149); /* subnormal spacing */
  return nextafterf(a, INFINITY) - a;
}

static double error_ulp(float got, double reference) {
  float r = (float)reference;
  if (isnan(r) && isnan(got)) return 0;
  if (isinf(r) || isinf(got)) return got == r ? 0 : INFINITY;
  return fabs((double)got - reference) / ulp_of(r);
}

/* Every 61st float in [lo, hi]: walk the bit patterns of the positive and negative parts. */
static void unary(const char* name, unary_vector vector, unary_double scalar, float lo,
                  float hi) {
  double worst = 0;
  float worst_x = 0;
  float lanes[16];
  int n = 0;
  for (int sign = 0; sign < 2; ++sign) {
    for (uint32_t bits = 0; bits < 0x7f800000u; bits += 61) {
      uint32_t b = bits | (sign ? 0x80000000u : 0);
      float x;
      memcpy(&x, &b, 4);
      if (x < lo || x > hi) continue;
      lanes[n++] = x;
      if (n < 16) continue;
      float out[16];
      _mm512_storeu_ps(out, vector(_mm512_loadu_ps(lanes)));
      for (int i = 0; i < 16; ++i) {
        double e = error_ulp(out[i], scalar(lanes[i]));
        if (e > worst) worst = e, worst_x = lanes[i];
      }
      n = 0;
    }
  }
  printf("%-6s %6.2f ulp (at %g)\n", name, worst, worst_x);
}

/* Pairs on a 1024 x 1024 grid of [lo, hi]^2. */
static void binary(const char* name, binary_vector vector, binary_double scalar, float lo,
                   float hi) {
  double worst = 0;
  float lanes_x[16], lanes_y[16];
  int n = 0;
  for (int i = 0; i < 1024; ++i)
    for (int j = 0; j < 1024; ++j) {
      lanes_x[n] = lo + (hi - lo) * (float)i / 1023.0f;
      lanes_y[n++] = lo + (hi - lo) * (float)j / 1023.0f;
      if (n < 16) continue;
      float out[16];
      _mm512_storeu_ps(out, vector(_mm512_loadu_ps(lanes_x), _mm512_loadu_ps(lanes_y)));
      for (int k = 0; k < 16; ++k) {
        double e = error_ulp(out[k], scalar(lanes_x[k], lanes_y[k]));
        if (e > worst) worst = e;
      }
      n = 0;
    }
  printf("%-6s %6.2f ulp\n", name, worst);
}

int main(void) {
  unary("exp", _ZGVeN16v_expf, exp, -87, 88);
  unary("exp2", _ZGVeN16v_exp2f, exp2, -126, 127);
  unary("expm1", _ZGVeN16v_expm1f, expm1, -87, 88);
  unary("log", _ZGVeN16v_logf, log, 0, INFINITY);
  unary("log2", _ZGVeN16v_log2f, log2, 0, INFINITY);
  unary("log10", _ZGVeN16v_log10f, log10, 0, INFINITY);
  unary("log1p", _ZGVeN16v_log1pf, log1p, -0.999f, INFINITY);
  unary("tanh", _ZGVeN16v_tanhf, tanh, -INFINITY, INFINITY);
  unary("erf", _ZGVeN16v_erff, erf, -INFINITY, INFINITY);
  unary("sin", _ZGVeN16v_sinf, sin, -1e4f, 1e4f);
  unary("cos", _ZGVeN16v_cosf, cos, -1e4f, 1e4f);
  unary("tan", _ZGVeN16v_tanf, tan, -1e4f, 1e4f);
  unary("asin", _ZGVeN16v_asinf, asin, -1, 1);
  unary("acos", _ZGVeN16v_acosf, acos, -1, 1);
  unary("atan", _ZGVeN16v_atanf, atan, -INFINITY, INFINITY);
  unary("sinh", _ZGVeN16v_sinhf, sinh, -89, 89);
  unary("cosh", _ZGVeN16v_coshf, cosh, -89, 89);
  unary("asinh", _ZGVeN16v_asinhf, asinh, -INFINITY, INFINITY);
  unary("acosh", _ZGVeN16v_acoshf, acosh, 1, INFINITY);
  unary("atanh", _ZGVeN16v_atanhf, atanh, -1, 1);
  binary("pow", _ZGVeN16vv_powf, pow, 0.01f, 8);
  binary("atan2", _ZGVeN16vv_atan2f, atan2, -8, 8);
  binary("hypot", _ZGVeN16vv_hypotf, hypot, -8, 8);
  return 0;
}
