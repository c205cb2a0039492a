#include "tilec/cpu/vector_math.h"

namespace tilec::cpu {

std::string libmvec_c_declarations() {
  // glibc 2.35 added exp2f, log2f, tanhf, erff and the other functions beyond sin, cos,
  // exp, log and pow to libmvec; older glibc gets the scalar calls. clang ignores the simd
  // attribute (it takes -fveclib instead), so the block is GCC's alone.
  return R"(#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35) && !defined(__FAST_MATH__)
/* libmvec's vector variants of the math functions (tilec/cpu/vector_math.h). */
#define TILEC_SIMD_MATH __attribute__((__simd__("notinbranch"), __nothrow__, __leaf__))
float expf(float) TILEC_SIMD_MATH;
float exp2f(float) TILEC_SIMD_MATH;
float expm1f(float) TILEC_SIMD_MATH;
float logf(float) TILEC_SIMD_MATH;
float log2f(float) TILEC_SIMD_MATH;
float log10f(float) TILEC_SIMD_MATH;
float log1pf(float) TILEC_SIMD_MATH;
float tanhf(float) TILEC_SIMD_MATH;
float erff(float) TILEC_SIMD_MATH;
float sinf(float) TILEC_SIMD_MATH;
float cosf(float) TILEC_SIMD_MATH;
float tanf(float) TILEC_SIMD_MATH;
float asinf(float) TILEC_SIMD_MATH;
float acosf(float) TILEC_SIMD_MATH;
float atanf(float) TILEC_SIMD_MATH;
float sinhf(float) TILEC_SIMD_MATH;
float coshf(float) TILEC_SIMD_MATH;
float asinhf(float) TILEC_SIMD_MATH;
float acoshf(float) TILEC_SIMD_MATH;
float atanhf(float) TILEC_SIMD_MATH;
float powf(float, float) TILEC_SIMD_MATH;
float atan2f(float, float) TILEC_SIMD_MATH;
float hypotf(float, float) TILEC_SIMD_MATH;
double exp(double) TILEC_SIMD_MATH;
double exp2(double) TILEC_SIMD_MATH;
double expm1(double) TILEC_SIMD_MATH;
double log(double) TILEC_SIMD_MATH;
double log2(double) TILEC_SIMD_MATH;
double log10(double) TILEC_SIMD_MATH;
double log1p(double) TILEC_SIMD_MATH;
double tanh(double) TILEC_SIMD_MATH;
double erf(double) TILEC_SIMD_MATH;
double sin(double) TILEC_SIMD_MATH;
double cos(double) TILEC_SIMD_MATH;
double tan(double) TILEC_SIMD_MATH;
double asin(double) TILEC_SIMD_MATH;
double acos(double) TILEC_SIMD_MATH;
double atan(double) TILEC_SIMD_MATH;
double sinh(double) TILEC_SIMD_MATH;
double cosh(double) TILEC_SIMD_MATH;
double asinh(double) TILEC_SIMD_MATH;
double acosh(double) TILEC_SIMD_MATH;
double atanh(double) TILEC_SIMD_MATH;
double pow(double, double) TILEC_SIMD_MATH;
double atan2(double, double) TILEC_SIMD_MATH;
double hypot(double, double) TILEC_SIMD_MATH;
#endif
)";
}

}  // namespace tilec::cpu
