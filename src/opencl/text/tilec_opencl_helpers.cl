/* Helper text of the OpenCL C dialect: CodeGenOpenCL::print_preamble prints the sections a
 * kernel needs ("types" always). Embedded at build time (tilec_embed_text);
 * tests/opencl/helper_text_test.cc builds this whole file with the OpenCL compiler, so an
 * error points here. Sections, `// @end`, `// @define`: include/tilec/codegen/text_sections.h. */
// @section types
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
/* The interpreter rounds every operation: no contraction into fused multiply-adds. */
#pragma OPENCL FP_CONTRACT OFF
typedef char int8_t;
typedef uchar uint8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;
#define INT64_C(x) ((long)(x##L))
#define UINT64_C(x) ((ulong)(x##UL))
#ifndef INT64_MIN
#define INT64_MIN ((long)(-0x7fffffffffffffffL - 1))
#endif
#ifndef INT32_MIN
#define INT32_MIN ((int)(-0x7fffffff - 1))
#endif
// @end
// Floor division/modulo (Python's // and %). A zero divisor yields 0 and, where the
// kernel divides by a non-constant, sets the kernel's private flag: the C codegen's
// flag reset declares it here, the *_checked helpers set it, and the kernel's end
// reports it through its status word (see the header).
// @section floordiv

// @define TILEC_STATUS_DIVISION_BY_ZERO
#define tilec_division_by_zero int tilec_div0
static inline int tilec_floordiv_i32(int a, int b) {
  if (b == 0) return 0;
  int q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int tilec_floormod_i32(int a, int b) {
  if (b == 0) return 0;
  int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline long tilec_floordiv_i64(long a, long b) {
  if (b == 0) return 0;
  long q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline long tilec_floormod_i64(long a, long b) {
  if (b == 0) return 0;
  long r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline uint tilec_div_u32(uint a, uint b) { return b == 0 ? 0 : a / b; }
static inline uint tilec_mod_u32(uint a, uint b) { return b == 0 ? 0 : a % b; }
static inline ulong tilec_div_u64(ulong a, ulong b) { return b == 0 ? 0 : a / b; }
static inline ulong tilec_mod_u64(ulong a, ulong b) { return b == 0 ? 0 : a % b; }
static inline float tilec_floordiv_f32(float a, float b) { return floor(a / b); }
static inline float tilec_floormod_f32(float a, float b) { return a - floor(a / b) * b; }
#ifdef cl_khr_fp64
static inline double tilec_floordiv_f64(double a, double b) { return floor(a / b); }
static inline double tilec_floormod_f64(double a, double b) { return a - floor(a / b) * b; }
#endif
#define TILEC_CL_CHECKED(FN, T) \
  static inline T FN##_checked(T a, T b, int* flag) { if (b == 0) *flag = 1; return FN(a, b); }
TILEC_CL_CHECKED(tilec_floordiv_i32, int)
TILEC_CL_CHECKED(tilec_floormod_i32, int)
TILEC_CL_CHECKED(tilec_floordiv_i64, long)
TILEC_CL_CHECKED(tilec_floormod_i64, long)
TILEC_CL_CHECKED(tilec_div_u32, uint)
TILEC_CL_CHECKED(tilec_mod_u32, uint)
TILEC_CL_CHECKED(tilec_div_u64, ulong)
TILEC_CL_CHECKED(tilec_mod_u64, ulong)
// @end
// float16 is stored as ushort and computed in float, rounded after every operation.
// The conversions go through the device's `half` type where it has cl_khr_fp16 (the
// OpenCL compiler defines the macro from the device's extension list), else through
// vload_half/vstore_half_rte, which every device has; both round to nearest even.
// @section f16

#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
static inline float tilec_f16_to_f32(ushort h) { return convert_float(as_half(h)); }
static inline ushort tilec_f32_to_f16(float f) { return as_ushort(convert_half_rte(f)); }
#else
static inline float tilec_f16_to_f32(ushort h) { return vload_half(0, (const __private half*)&h); }
static inline ushort tilec_f32_to_f16(float f) {
  ushort h;
  vstore_half_rte(f, 0, (__private half*)&h);
  return h;
}
#endif
static inline float tilec_round_f16(float f) { return tilec_f16_to_f32(tilec_f32_to_f16(f)); }
// @end
// @section bf16

static inline float tilec_bf16_to_f32(ushort h) { return as_float((uint)h << 16); }
static inline ushort tilec_f32_to_bf16(float f) {
  uint u = as_uint(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (ushort)((u >> 16) | 0x40u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
static inline float tilec_round_bf16(float f) { return tilec_bf16_to_f32(tilec_f32_to_bf16(f)); }
// @end
// Atomic updates (ir::atomic_update) by address space: OpenCL 1.2's atomic_add/max/min
// (and atomic_and/or/xor for bitwise reducers) for 32-bit integers, a compare-and-swap loop on the
// bits for float adds, max and min (combining as the IR's kAdd/kMax/kMin do); private elements are
// one work-item's own.
// @section atomic

#define TILEC_CL_CAS_F32(NAME, SPACE, NEXT)                                \
  static inline float NAME(volatile SPACE float* p, float v) {             \
    union { uint u; float f; } seen, next;                                 \
    seen.f = *p;                                                           \
    for (;;) {                                                             \
      float cur = seen.f;                                                  \
      next.f = (NEXT);                                                     \
      uint old = atomic_cmpxchg((volatile SPACE uint*)p, seen.u, next.u);  \
      if (old == seen.u) return cur;                                       \
      seen.u = old;                                                        \
    }                                                                      \
  }
#define TILEC_CL_INT(NAME, SPACE, T, FN) \
  static inline T NAME(volatile SPACE T* p, T v) { return FN(p, v); }
#define TILEC_CL_ATOMICS(SPACE, S)                                         \
  TILEC_CL_CAS_F32(tilec_atomic_add_f32_##S, SPACE, cur + v)               \
  TILEC_CL_CAS_F32(tilec_atomic_max_f32_##S, SPACE, cur < v ? v : cur)     \
  TILEC_CL_CAS_F32(tilec_atomic_min_f32_##S, SPACE, v < cur ? v : cur)     \
  TILEC_CL_INT(tilec_atomic_add_i32_##S, SPACE, int, atomic_add)           \
  TILEC_CL_INT(tilec_atomic_max_i32_##S, SPACE, int, atomic_max)           \
  TILEC_CL_INT(tilec_atomic_min_i32_##S, SPACE, int, atomic_min)           \
  TILEC_CL_INT(tilec_atomic_add_u32_##S, SPACE, uint, atomic_add)          \
  TILEC_CL_INT(tilec_atomic_max_u32_##S, SPACE, uint, atomic_max)          \
  TILEC_CL_INT(tilec_atomic_min_u32_##S, SPACE, uint, atomic_min)          \
  TILEC_CL_INT(tilec_atomic_and_i32_##S, SPACE, int, atomic_and)           \
  TILEC_CL_INT(tilec_atomic_or_i32_##S, SPACE, int, atomic_or)             \
  TILEC_CL_INT(tilec_atomic_xor_i32_##S, SPACE, int, atomic_xor)           \
  TILEC_CL_INT(tilec_atomic_and_u32_##S, SPACE, uint, atomic_and)          \
  TILEC_CL_INT(tilec_atomic_or_u32_##S, SPACE, uint, atomic_or)            \
  TILEC_CL_INT(tilec_atomic_xor_u32_##S, SPACE, uint, atomic_xor)
TILEC_CL_ATOMICS(__global, global)
TILEC_CL_ATOMICS(__local, local)
#define TILEC_CL_PRIVATE(NAME, T, NEXT) \
  static inline T NAME(T* p, T v) { T cur = *p; *p = (NEXT); return cur; }
TILEC_CL_PRIVATE(tilec_atomic_add_f32_private, float, cur + v)
TILEC_CL_PRIVATE(tilec_atomic_max_f32_private, float, cur < v ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_min_f32_private, float, v < cur ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_add_i32_private, int, cur + v)
TILEC_CL_PRIVATE(tilec_atomic_max_i32_private, int, cur < v ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_min_i32_private, int, v < cur ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_add_u32_private, uint, cur + v)
TILEC_CL_PRIVATE(tilec_atomic_max_u32_private, uint, cur < v ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_min_u32_private, uint, v < cur ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_and_i32_private, int, cur & v)
TILEC_CL_PRIVATE(tilec_atomic_or_i32_private, int, cur | v)
TILEC_CL_PRIVATE(tilec_atomic_xor_i32_private, int, cur ^ v)
TILEC_CL_PRIVATE(tilec_atomic_and_u32_private, uint, cur & v)
TILEC_CL_PRIVATE(tilec_atomic_or_u32_private, uint, cur | v)
TILEC_CL_PRIVATE(tilec_atomic_xor_u32_private, uint, cur ^ v)
// @end
// 16-bit float elements (stored as ushort): OpenCL 1.2 has no 16-bit compare-and-swap,
// so the loop swaps the aligned 32-bit word holding the element (devices are little
// endian: the element at an address with bit 1 set is the word's high half), combining
// in float and rounding to the dtype.
// @section atomic16

#define TILEC_CL_CAS16(NAME, SPACE, TO, FROM, NEXT)                                       \
  static inline float NAME(volatile SPACE ushort* p, float v) {                            \
    volatile SPACE uint* word = (volatile SPACE uint*)((uintptr_t)p & ~(uintptr_t)3);      \
    uint shift = ((uintptr_t)p & 2) ? 16u : 0u;                                            \
    uint seen = *word;                                                                     \
    for (;;) {                                                                             \
      float cur = TO((ushort)(seen >> shift));                                             \
      uint want = (seen & ~(0xFFFFu << shift)) | ((uint)FROM((float)(NEXT)) << shift);     \
      uint old = atomic_cmpxchg(word, seen, want);                                         \
      if (old == seen) return cur;                                                         \
      seen = old;                                                                          \
    }                                                                                      \
  }
#define TILEC_CL_PRIVATE16(NAME, TO, FROM, NEXT) \
  static inline float NAME(ushort* p, float v) { float cur = TO(*p); *p = FROM((float)(NEXT)); return cur; }
#define TILEC_CL_ATOMICS16(S, TO, FROM)                                                    \
  TILEC_CL_CAS16(tilec_atomic_add_##S##_global, __global, TO, FROM, cur + v)               \
  TILEC_CL_CAS16(tilec_atomic_max_##S##_global, __global, TO, FROM, cur < v ? v : cur)     \
  TILEC_CL_CAS16(tilec_atomic_min_##S##_global, __global, TO, FROM, v < cur ? v : cur)     \
  TILEC_CL_CAS16(tilec_atomic_add_##S##_local, __local, TO, FROM, cur + v)                 \
  TILEC_CL_CAS16(tilec_atomic_max_##S##_local, __local, TO, FROM, cur < v ? v : cur)       \
  TILEC_CL_CAS16(tilec_atomic_min_##S##_local, __local, TO, FROM, v < cur ? v : cur)       \
  TILEC_CL_PRIVATE16(tilec_atomic_add_##S##_private, TO, FROM, cur + v)                    \
  TILEC_CL_PRIVATE16(tilec_atomic_max_##S##_private, TO, FROM, cur < v ? v : cur)          \
  TILEC_CL_PRIVATE16(tilec_atomic_min_##S##_private, TO, FROM, v < cur ? v : cur)
// @end
// @section atomic16_f16
TILEC_CL_ATOMICS16(f16, tilec_f16_to_f32, tilec_f32_to_f16)
// @end
// @section atomic16_bf16
TILEC_CL_ATOMICS16(bf16, tilec_bf16_to_f32, tilec_f32_to_bf16)
// @end
