/* Helper text of the C dialect (host and CPU device code): the C host codegen and
 * codegen::c_preamble_helper() print each section on request, each guarded by a macro so
 * host and device code concatenate into one translation unit. Embedded at build time
 * (tilec_embed_text); tests/codegen/helper_text_test.cc compiles this file with the system
 * C compiler. Sections, `// @end` and `// @define`: include/tilec/codegen/text_sections.h. */
// @section includes
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
// @end
// Floor division/modulo (Python's // and %): C's / and % truncate toward zero.
// A zero integer divisor would trap (SIGFPE kills the host process) where the
// interpreter raises an error, so it sets the calling thread's flag and yields 0;
// a function that divides by a non-constant checks the flag after its body (a
// task runs on one thread from start to end). Inlined with a constant divisor,
// the check folds away. The unsigned helpers divide as C does.
// @section floordiv

#ifndef TILEC_HELPER_FLOORDIV
#define TILEC_HELPER_FLOORDIV
// @define TILEC_STATUS_DIVISION_BY_ZERO
static __thread __attribute__((unused)) int32_t tilec_division_by_zero = 0;
static inline __attribute__((unused)) int32_t tilec_floordiv_i32(int32_t a, int32_t b) {
  if (b == 0) { tilec_division_by_zero = 1; return 0; }
  int32_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline __attribute__((unused)) int32_t tilec_floormod_i32(int32_t a, int32_t b) {
  if (b == 0) { tilec_division_by_zero = 1; return 0; }
  int32_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline __attribute__((unused)) int64_t tilec_floordiv_i64(int64_t a, int64_t b) {
  if (b == 0) { tilec_division_by_zero = 1; return 0; }
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline __attribute__((unused)) int64_t tilec_floormod_i64(int64_t a, int64_t b) {
  if (b == 0) { tilec_division_by_zero = 1; return 0; }
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline __attribute__((unused)) uint32_t tilec_div_u32(uint32_t a, uint32_t b) {
  if (b == 0) { tilec_division_by_zero = 1; return 0; }
  return a / b;
}
static inline __attribute__((unused)) uint32_t tilec_mod_u32(uint32_t a, uint32_t b) {
  if (b == 0) { tilec_division_by_zero = 1; return 0; }
  return a % b;
}
static inline __attribute__((unused)) uint64_t tilec_div_u64(uint64_t a, uint64_t b) {
  if (b == 0) { tilec_division_by_zero = 1; return 0; }
  return a / b;
}
static inline __attribute__((unused)) uint64_t tilec_mod_u64(uint64_t a, uint64_t b) {
  if (b == 0) { tilec_division_by_zero = 1; return 0; }
  return a % b;
}
static inline __attribute__((unused)) float tilec_floordiv_f32(float a, float b) { return floorf(a / b); }
static inline __attribute__((unused)) float tilec_floormod_f32(float a, float b) { return a - floorf(a / b) * b; }
static inline __attribute__((unused)) double tilec_floordiv_f64(double a, double b) { return floor(a / b); }
static inline __attribute__((unused)) double tilec_floormod_f64(double a, double b) { return a - floor(a / b) * b; }
#endif
// @end
// IEEE half <-> float with round-to-nearest-even, by exact float arithmetic
// (the FP16 library's method); needs float math without excess precision.
// @section f16

#ifndef TILEC_HELPER_F16
#define TILEC_HELPER_F16
static inline __attribute__((unused)) float tilec_bits_to_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline __attribute__((unused)) uint32_t tilec_f32_to_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* Both conversions select with masks, not ?: or if: GCC then vectorizes a loop of them
   (8 values in about ten vector operations), where a branch kept it scalar at about
   fifteen instructions a value, half of a float16 GEMM's time. Bit for bit the same
   results as the branching form (checked over every float16 and every float32). */
static inline __attribute__((unused)) float tilec_f16_to_f32(uint16_t h) {
  const uint32_t w = (uint32_t)h << 16;
  const uint32_t sign = w & UINT32_C(0x80000000);
  const uint32_t two_w = w + w;
  const uint32_t normalized = tilec_f32_to_bits(tilec_bits_to_f32((two_w >> 4) + (UINT32_C(0xE0) << 23)) * 0x1.0p-112f);
  const uint32_t denormalized = tilec_f32_to_bits(tilec_bits_to_f32((two_w >> 17) | (UINT32_C(126) << 23)) - 0.5f);
  const uint32_t is_denormal = UINT32_C(0) - (uint32_t)(two_w < (UINT32_C(1) << 27));
  return tilec_bits_to_f32(sign | (denormalized & is_denormal) | (normalized & ~is_denormal));
}
static inline __attribute__((unused)) uint16_t tilec_f32_to_f16(float f) {
  const float scaled = (fabsf(f) * 0x1.0p+112f) * 0x1.0p-110f;
  const uint32_t w = tilec_f32_to_bits(f);
  const uint32_t shl1_w = w + w;
  const uint32_t sign = w & UINT32_C(0x80000000);
  const uint32_t exponent = shl1_w & UINT32_C(0xFF000000);
  const uint32_t is_small = UINT32_C(0) - (uint32_t)(exponent < UINT32_C(0x71000000));
  const uint32_t bias = (UINT32_C(0x71000000) & is_small) | (exponent & ~is_small);
  const uint32_t bits = tilec_f32_to_bits(tilec_bits_to_f32((bias >> 1) + UINT32_C(0x07800000)) + scaled);
  const uint32_t nonsign = ((bits >> 13) & UINT32_C(0x7C00)) + (bits & UINT32_C(0x0FFF));
  const uint32_t is_nan = UINT32_C(0) - (uint32_t)(shl1_w > UINT32_C(0xFF000000));
  return (uint16_t)((sign >> 16) | (UINT32_C(0x7E00) & is_nan) | (nonsign & ~is_nan));
}
static inline __attribute__((unused)) float tilec_round_f16(float f) { return tilec_f16_to_f32(tilec_f32_to_f16(f)); }
#endif
// @end
// @section bf16

#ifndef TILEC_HELPER_BF16
#define TILEC_HELPER_BF16
static inline __attribute__((unused)) float tilec_bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline __attribute__((unused)) uint16_t tilec_f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  /* NaN: quieted; else rounded to nearest even. Selected with a mask, as above. */
  const uint32_t is_nan = UINT32_C(0) - (uint32_t)((u & UINT32_C(0x7FFFFFFF)) > UINT32_C(0x7F800000));
  const uint32_t rounded = (u + UINT32_C(0x7FFF) + ((u >> 16) & 1)) >> 16;
  return (uint16_t)((((u >> 16) | 0x40) & is_nan) | (rounded & ~is_nan));
}
static inline __attribute__((unused)) float tilec_round_bf16(float f) { return tilec_bf16_to_f32(tilec_f32_to_bf16(f)); }
#endif
// @end
// "The iterations of the next loop are independent", in each compiler's spelling.
// @section ivdep

#ifndef TILEC_IVDEP
#if defined(__clang__)
#define TILEC_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define TILEC_IVDEP _Pragma("GCC ivdep")
#else
#define TILEC_IVDEP
#endif
#endif
// @end
// Atomic updates (ir::atomic_update) across the blocks that the thread pool runs at
// once: compare-and-swap loops on the element's bits, combining as the IR's kAdd/kMax/
// kMin do (and, for integers, kBitAnd/kBitOr/kBitXor: a bitwise reducer's update).
// Each returns the previous value.
// @section atomic

#ifndef TILEC_HELPER_ATOMIC
#define TILEC_HELPER_ATOMIC
#define TILEC_ATOMIC_CAS(NAME, T, U, NEXT)                                             \
  static inline __attribute__((unused)) T NAME(T* p, T v) {                            \
    U seen = __atomic_load_n((U*)p, __ATOMIC_RELAXED);                                 \
    for (;;) {                                                                         \
      T cur, next;                                                                     \
      U want;                                                                          \
      memcpy(&cur, &seen, sizeof cur);                                                 \
      next = (T)(NEXT);                                                                \
      memcpy(&want, &next, sizeof want);                                               \
      if (__atomic_compare_exchange_n((U*)p, &seen, want, 1, __ATOMIC_RELAXED,         \
                                      __ATOMIC_RELAXED))                               \
        return cur;                                                                    \
    }                                                                                  \
  }
#define TILEC_ATOMIC_ALL(S, T, U)                                                      \
  TILEC_ATOMIC_CAS(tilec_atomic_add_##S, T, U, cur + v)                                \
  TILEC_ATOMIC_CAS(tilec_atomic_max_##S, T, U, cur < v ? v : cur)                      \
  TILEC_ATOMIC_CAS(tilec_atomic_min_##S, T, U, v < cur ? v : cur)
#define TILEC_ATOMIC_INT(S, T)                                                         \
  TILEC_ATOMIC_ALL(S, T, T)                                                            \
  TILEC_ATOMIC_CAS(tilec_atomic_and_##S, T, T, cur & v)                                \
  TILEC_ATOMIC_CAS(tilec_atomic_or_##S, T, T, cur | v)                                 \
  TILEC_ATOMIC_CAS(tilec_atomic_xor_##S, T, T, cur ^ v)
TILEC_ATOMIC_ALL(f32, float, uint32_t)
TILEC_ATOMIC_ALL(f64, double, uint64_t)
TILEC_ATOMIC_INT(i8, int8_t)
TILEC_ATOMIC_INT(i16, int16_t)
TILEC_ATOMIC_INT(i32, int32_t)
TILEC_ATOMIC_INT(i64, int64_t)
TILEC_ATOMIC_INT(u8, uint8_t)
TILEC_ATOMIC_INT(u16, uint16_t)
TILEC_ATOMIC_INT(u32, uint32_t)
TILEC_ATOMIC_INT(u64, uint64_t)
#endif
// @end
// Atomic updates of 16-bit float elements (stored as uint16_t, computed in float): a
// compare-and-swap loop on the element's 16 bits that combines in float and rounds the
// result to the element's dtype, as a store would. Returns the previous value.
// @section atomic16

#ifndef TILEC_HELPER_ATOMIC16
#define TILEC_HELPER_ATOMIC16
#define TILEC_ATOMIC16(NAME, TO, FROM, NEXT)                                           \
  static inline __attribute__((unused)) float NAME(uint16_t* p, float v) {             \
    uint16_t seen = __atomic_load_n(p, __ATOMIC_RELAXED);                              \
    for (;;) {                                                                         \
      float cur = TO(seen);                                                            \
      uint16_t want = FROM((float)(NEXT));                                             \
      if (__atomic_compare_exchange_n(p, &seen, want, 1, __ATOMIC_RELAXED,             \
                                      __ATOMIC_RELAXED))                               \
        return cur;                                                                    \
    }                                                                                  \
  }
#endif
// @end
// The bounds-checked mode's record (codegen/bounds_record.h): the first violation of a
// launch claims it with a compare-and-swap and writes its message; later ones only see
// that it is claimed.
// @section bounds

#ifndef TILEC_HELPER_BOUNDS
#define TILEC_HELPER_BOUNDS
#include <stdarg.h>
#include <stdio.h>
// @define TILEC_STATUS_OUT_OF_BOUNDS
typedef struct TilecBoundsRecord {
  int32_t claimed;
  int32_t reserved;
  char message[512];
} TilecBoundsRecord;
static inline __attribute__((unused, format(printf, 2, 3))) void tilec_bounds_report(
    TilecBoundsRecord* record, const char* fmt, ...) {
  int32_t unclaimed = 0;
  if (!__atomic_compare_exchange_n(&record->claimed, &unclaimed, 1, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_RELAXED))
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(record->message, sizeof record->message, fmt, ap);
  va_end(ap);
}
static inline __attribute__((unused)) int32_t tilec_bounds_failed(const TilecBoundsRecord* record) {
  return __atomic_load_n(&record->claimed, __ATOMIC_RELAXED);
}
#endif
// @end
// @section alloc

#ifndef TILEC_HELPER_ALLOC
#define TILEC_HELPER_ALLOC
// @define TILEC_STATUS_OUT_OF_MEMORY
static inline __attribute__((unused)) void* tilec_alloc(size_t bytes) {
  return aligned_alloc(64, (bytes + 63) / 64 * 64);
}
static inline __attribute__((unused)) void tilec_free(void* p) { free(p); }
#endif
// @end
// float8's memcpy bit casts; the conversions themselves are per dtype (narrow_float.h).
// @section f8_bits

#ifndef TILEC_HELPER_F8_BITS
#define TILEC_HELPER_F8_BITS
static inline __attribute__((unused)) uint32_t tilec_f8_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline __attribute__((unused)) float tilec_f8_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
#endif
// @end
// @section kernel_arg

#ifndef TILEC_KERNEL_ARG_DEFINED
#define TILEC_KERNEL_ARG_DEFINED
/* One argument of a device function, packed by the host entry. */
typedef union TilecKernelArg {
  void* ptr;
  int64_t i;
  double f;
} TilecKernelArg;
#endif
// @end
// The DLPack v0.6 structs runtime/abi.h uses (with DLPack 1.1's two float8 codes),
// embedded so the generated library needs no DLPack header; abi.h itself follows, from
// runtime_abi_c_declarations().
// @section dlpack

#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_
typedef enum {
  kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4, kDLVulkan = 7, kDLMetal = 8,
  kDLVPI = 9, kDLROCM = 10, kDLROCMHost = 11, kDLExtDev = 12, kDLCUDAManaged = 13,
  kDLOneAPI = 14, kDLWebGPU = 15, kDLHexagon = 16
} DLDeviceType;
typedef struct {
  DLDeviceType device_type;
  int device_id;
} DLDevice;
typedef enum {
  kDLInt = 0U, kDLUInt = 1U, kDLFloat = 2U, kDLOpaqueHandle = 3U, kDLBfloat = 4U, kDLComplex = 5U,
  kDLFloat8_e4m3fn = 10U, kDLFloat8_e5m2 = 12U
} DLDataTypeCode;
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void* data;
  DLDevice device;
  int ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;
#endif
// @end
