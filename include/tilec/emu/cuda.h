// CUDA C++ on tilec's device emulator: the names CodeGenCUDA's output uses, defined for
// the host C++ compiler, so the `emulator` execution backend compiles the very source
// NVRTC compiles. The build force-includes this header; the source's preamble sees
// TILEC_EMULATOR and takes the definitions below for the helpers it otherwise writes in
// inline PTX (ldmatrix, mma.sync, cp.async). What differs from a GPU:
//   - a block's threads run as fibers on one OS thread, switching only at __syncthreads
//     and warp collectives, so between two such points a thread runs alone;
//   - warp collectives (shuffles, votes, ldmatrix, mma.sync) wait for every lane of
//     their mask and check that the lanes agree; their results follow the PTX ISA;
//   - cp.async copies complete at the latest moment the PTX ISA allows (the wait that
//     retires their group, or the thread's end), which exposes a read before the wait;
//   - atomics are the host's; float math is the host's (-ffp-contract=off, as the GPU
//     build uses --fmad=false), so transcendental functions may differ in the last ulp;
//   - mma.sync accumulates the 16 products of each k step in float32 in order, where a
//     tensor core adds them in an order and precision of its own.
// cuda_fp16.h, cuda_bf16.h and cuda_fp8.h come from the emulator's include directory:
// tilec's own conversions (docs/semantics.md), which the GPU's agree with.
#ifndef TILEC_EMU_CUDA_H_
#define TILEC_EMU_CUDA_H_

#define TILEC_EMULATOR 1
#define TILEC_EMU_WARP_SIZE 32
// sm_90's largest opt-in dynamic shared memory per block (227 KB).
#define TILEC_EMU_MAX_DYNAMIC_SHARED 232448

// A header library built on the CUDA toolkit's headers (the CuTe variant's CUTLASS)
// needs the toolkit's own: they come first, and the names below replace theirs.
#ifdef TILEC_EMU_CUDA_TOOLKIT
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#undef __global__
#undef __device__
#undef __host__
#undef __constant__
#undef __forceinline__
#undef __noinline__
#undef __launch_bounds__
#undef __align__
#undef __shared__
#endif

#include "tilec/emu/device.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
// Block-scope thread_local is static: one copy per OS thread, i.e. per running block.
#define __shared__ thread_local

#ifndef TILEC_EMU_CUDA_TOOLKIT
struct uint2 {
  unsigned int x, y;
} __attribute__((aligned(8)));
struct uint4 {
  unsigned int x, y, z, w;
} __attribute__((aligned(16)));
struct int2 {
  int x, y;
} __attribute__((aligned(8)));
struct int4 {
  int x, y, z, w;
} __attribute__((aligned(16)));
struct float2 {
  float x, y;
} __attribute__((aligned(8)));
struct float4 {
  float x, y, z, w;
} __attribute__((aligned(16)));
typedef TilecEmuDim3 uint3;
#endif

#define threadIdx (tilec_emu::self().thread_idx)
#define blockIdx (tilec_emu::self().block_idx)
#define blockDim (tilec_emu::self().block_dim)
#define gridDim (tilec_emu::self().grid_dim)
#define warpSize 32

inline void __syncthreads(int line = __builtin_LINE()) {
  tilec_emu::api->barrier("__syncthreads()", line);
}
inline void __threadfence_block() {}
inline void __threadfence() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

// ---- Reinterpretations and math the host lacks -------------------------------------
inline float __int_as_float(int v) {
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}
inline int __float_as_int(float v) {
  int i;
  std::memcpy(&i, &v, 4);
  return i;
}
inline float __uint_as_float(unsigned v) {
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}
inline unsigned __float_as_uint(float v) {
  unsigned i;
  std::memcpy(&i, &v, 4);
  return i;
}
inline double __longlong_as_double(long long v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline long long __double_as_longlong(double v) {
  long long i;
  std::memcpy(&i, &v, 8);
  return i;
}
// CUDA's fast-math intrinsics: the host's precise functions.
#define TILEC_EMU_CUDA_UNARY(NAME, FN) \
  inline float NAME(float x) {         \
    return FN(x);                      \
  }
TILEC_EMU_CUDA_UNARY(__expf, expf)
TILEC_EMU_CUDA_UNARY(__exp10f, exp10f)
TILEC_EMU_CUDA_UNARY(__logf, logf)
TILEC_EMU_CUDA_UNARY(__log2f, log2f)
TILEC_EMU_CUDA_UNARY(__log10f, log10f)
TILEC_EMU_CUDA_UNARY(__sinf, sinf)
TILEC_EMU_CUDA_UNARY(__cosf, cosf)
TILEC_EMU_CUDA_UNARY(__tanf, tanf)
#undef TILEC_EMU_CUDA_UNARY
inline float __powf(float x, float y) {
  return powf(x, y);
}
inline float __fdividef(float x, float y) {
  return x / y;
}
inline float __frcp_rn(float x) {
  return 1.0f / x;
}
inline float __fsqrt_rn(float x) {
  return sqrtf(x);
}
inline float rsqrtf(float x) {
  return 1.0f / sqrtf(x);
}
inline double rsqrt(double x) {
  return 1.0 / sqrt(x);
}
inline float __saturatef(float x) {
  return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}
inline float __fadd_rn(float a, float b) {
  return a + b;
}
inline float __fmul_rn(float a, float b) {
  return a * b;
}
inline float __fmaf_rn(float a, float b, float c) {
  return fmaf(a, b, c);
}
inline int __popc(unsigned v) {
  return __builtin_popcount(v);
}
inline int __popcll(unsigned long long v) {
  return __builtin_popcountll(v);
}
inline int __clz(int v) {
  return v == 0 ? 32 : __builtin_clz(unsigned(v));
}
inline int __ffs(int v) {
  return __builtin_ffs(v);
}
inline unsigned __brev(unsigned v) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}
inline int min(int a, int b) {
  return a < b ? a : b;
}
inline int max(int a, int b) {
  return a < b ? b : a;
}
inline unsigned int umin(unsigned int a, unsigned int b) {
  return a < b ? a : b;
}
inline unsigned int umax(unsigned int a, unsigned int b) {
  return a < b ? b : a;
}
inline long long llmin(long long a, long long b) {
  return a < b ? a : b;
}
inline long long llmax(long long a, long long b) {
  return a < b ? b : a;
}

// ---- Atomics: the host's, on any address (global memory is shared by the OS threads
// that run blocks; shared memory by one block's fibers) -------------------------------
namespace tilec_emu::cuda {

template <class T>
TILEC_EMU_UNCHECKED T cas_loop(T* p, T v, int op) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  Bits* word = reinterpret_cast<Bits*>(p);
  Bits seen = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    T cur;
    std::memcpy(&cur, &seen, sizeof cur);
    T next = op == 0 ? cur + v : op == 1 ? (cur < v ? v : cur) : op == 2 ? (v < cur ? v : cur) : v;
    Bits want;
    std::memcpy(&want, &next, sizeof want);
    if (__atomic_compare_exchange_n(word, &seen, want, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      return cur;
  }
}

}  // namespace tilec_emu::cuda

#define TILEC_EMU_CUDA_INT_ATOMICS(T)                                                              \
  TILEC_EMU_UNCHECKED inline T atomicAdd(T* p, T v) {                                              \
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  TILEC_EMU_UNCHECKED inline T atomicSub(T* p, T v) {                                              \
    return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  TILEC_EMU_UNCHECKED inline T atomicExch(T* p, T v) {                                             \
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                            \
  }                                                                                                \
  TILEC_EMU_UNCHECKED inline T atomicAnd(T* p, T v) {                                              \
    return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  TILEC_EMU_UNCHECKED inline T atomicOr(T* p, T v) {                                               \
    return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                              \
  }                                                                                                \
  TILEC_EMU_UNCHECKED inline T atomicXor(T* p, T v) {                                              \
    return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  TILEC_EMU_UNCHECKED inline T atomicMax(T* p, T v) {                                              \
    return tilec_emu::cuda::cas_loop(p, v, 1);                                                     \
  }                                                                                                \
  TILEC_EMU_UNCHECKED inline T atomicMin(T* p, T v) {                                              \
    return tilec_emu::cuda::cas_loop(p, v, 2);                                                     \
  }                                                                                                \
  TILEC_EMU_UNCHECKED inline T atomicCAS(T* p, T expected, T desired) {                            \
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return expected;                                                                               \
  }
TILEC_EMU_CUDA_INT_ATOMICS(int)
TILEC_EMU_CUDA_INT_ATOMICS(unsigned int)
TILEC_EMU_CUDA_INT_ATOMICS(long long)
TILEC_EMU_CUDA_INT_ATOMICS(unsigned long long)
#undef TILEC_EMU_CUDA_INT_ATOMICS

TILEC_EMU_UNCHECKED inline unsigned short atomicCAS(unsigned short* p, unsigned short expected,
                                                    unsigned short desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
TILEC_EMU_UNCHECKED inline float atomicAdd(float* p, float v) {
  return tilec_emu::cuda::cas_loop(p, v, 0);
}
TILEC_EMU_UNCHECKED inline double atomicAdd(double* p, double v) {
  return tilec_emu::cuda::cas_loop(p, v, 0);
}
TILEC_EMU_UNCHECKED inline float atomicExch(float* p, float v) {
  return tilec_emu::cuda::cas_loop(p, v, 3);
}
TILEC_EMU_UNCHECKED inline unsigned atomicInc(unsigned* p, unsigned limit) {
  unsigned seen = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &seen, seen >= limit ? 0u : seen + 1u, false,
                                      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return seen;
}
TILEC_EMU_UNCHECKED inline unsigned atomicDec(unsigned* p, unsigned limit) {
  unsigned seen = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &seen, (seen == 0 || seen > limit) ? limit : seen - 1u,
                                      false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return seen;
}

// ---- Warp collectives ----------------------------------------------------------------
namespace tilec_emu::cuda {

// A vote: each lane's predicate in, every lane gets the ballot of the mask.
TILEC_EMU_UNCHECKED inline void complete_ballot(TilecEmuLane* lanes, uint32_t warp_size,
                                                uint64_t mask) {
  uint32_t ballot = 0;
  for (uint32_t l = 0; l < warp_size; ++l)
    if (((mask >> l) & 1) && lanes[l].in[0]) ballot |= 1u << l;
  for (uint32_t l = 0; l < warp_size; ++l)
    if ((mask >> l) & 1) std::memcpy(lanes[l].out, &ballot, sizeof ballot);
}

TILEC_EMU_UNCHECKED inline void complete_nothing(TilecEmuLane*, uint32_t, uint64_t) {}

template <class T>
T shuffle(const char* what, int line, unsigned mask, T value, int source) {
  static_assert(sizeof(T) <= 8, "warp shuffles move at most 8 bytes");
  ShuffleIn in{};
  std::memcpy(in.value, &value, sizeof value);
  in.source = source;
  uint8_t out[8];
  api->collective(what, line, mask, &in, sizeof in, out, sizeof out, &complete_shuffle);
  T result;
  std::memcpy(&result, out, sizeof result);
  return result;
}

// The source lane of lane `lane` in a segment of `width` lanes, or -1 for its own value.
inline int segment_source(int lane, int target, int width) {
  int base = lane & ~(width - 1);
  return (target < base || target >= base + width) ? -1 : target;
}

}  // namespace tilec_emu::cuda

template <class T>
T __shfl_sync(unsigned mask, T v, int src, int width = 32, int line = __builtin_LINE()) {
  int lane = int(tilec_emu::self().lane);
  int base = lane & ~(width - 1);
  return tilec_emu::cuda::shuffle("__shfl_sync", line, mask, v, base + (src & (width - 1)));
}
template <class T>
T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32, int line = __builtin_LINE()) {
  int lane = int(tilec_emu::self().lane);
  return tilec_emu::cuda::shuffle("__shfl_xor_sync", line, mask, v,
                                  tilec_emu::cuda::segment_source(lane, lane ^ lane_mask, width));
}
template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32, int line = __builtin_LINE()) {
  int lane = int(tilec_emu::self().lane);
  return tilec_emu::cuda::shuffle("__shfl_up_sync", line, mask, v,
                                  tilec_emu::cuda::segment_source(lane, lane - int(delta), width));
}
template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32,
                   int line = __builtin_LINE()) {
  int lane = int(tilec_emu::self().lane);
  return tilec_emu::cuda::shuffle("__shfl_down_sync", line, mask, v,
                                  tilec_emu::cuda::segment_source(lane, lane + int(delta), width));
}
inline unsigned __ballot_sync(unsigned mask, int predicate, int line = __builtin_LINE()) {
  uint8_t in = predicate != 0;
  unsigned out = 0;
  tilec_emu::api->collective("__ballot_sync", line, mask, &in, 1, &out, sizeof out,
                             &tilec_emu::cuda::complete_ballot);
  return out;
}
inline int __any_sync(unsigned mask, int predicate, int line = __builtin_LINE()) {
  return (__ballot_sync(mask, predicate, line) & mask) != 0;
}
inline int __all_sync(unsigned mask, int predicate, int line = __builtin_LINE()) {
  return (__ballot_sync(mask, predicate, line) & mask) == mask;
}
inline void __syncwarp(unsigned mask = 0xffffffffu, int line = __builtin_LINE()) {
  tilec_emu::api->collective("__syncwarp", line, mask, nullptr, 0, nullptr, 0,
                             &tilec_emu::cuda::complete_nothing);
}
// The lanes of this warp that exist (the emulator has no divergence to report).
inline unsigned __activemask() {
  const TilecEmuThread& t = tilec_emu::self();
  uint32_t threads = t.block_dim.x * t.block_dim.y * t.block_dim.z;
  uint32_t first = t.warp * 32u;
  uint32_t n = threads - first < 32u ? threads - first : 32u;
  return n == 32u ? 0xffffffffu : ((1u << n) - 1u);
}
inline unsigned __lanemask_lt() {
  return (1u << tilec_emu::self().lane) - 1u;
}

// ---- ldmatrix and mma.sync (the tensor-core gemm's helpers, cuda/mma_gemm.h) ---------
namespace tilec_emu::cuda {

// ldmatrix.m8n8.xN(.trans).b16: lane 8m + r gives the address of row r of matrix m; lane
// l receives, for each matrix, the two elements of row l / 4 at columns 2 (l % 4) and
// 2 (l % 4) + 1 (with .trans: of column l / 4 at rows 2 (l % 4) and 2 (l % 4) + 1).
template <int N, bool Trans>
TILEC_EMU_UNCHECKED void complete_ldmatrix(TilecEmuLane* lanes, uint32_t, uint64_t) {
  const uint16_t* rows[4 * 8];
  for (int r = 0; r < N * 8; ++r) {
    std::memcpy(&rows[r], lanes[r].in, sizeof rows[r]);
    if (state.shared_end != 0)
      api->access(rows[r], 16, 0, nullptr, lanes[r].line, int32_t(lanes[r].flat));
  }
  for (int l = 0; l < 32; ++l) {
    uint32_t regs[4];
    for (int m = 0; m < N; ++m) {
      uint16_t e[2];
      for (int j = 0; j < 2; ++j) {
        int pair = (l % 4) * 2 + j;
        e[j] = Trans ? rows[m * 8 + pair][l / 4] : rows[m * 8 + l / 4][pair];
      }
      regs[m] = uint32_t(e[0]) | (uint32_t(e[1]) << 16);
    }
    std::memcpy(lanes[l].out, regs, sizeof(uint32_t) * N);
  }
}

template <int N, bool Trans>
void ldmatrix(const char* what, uint32_t* r, const void* row, int line) {
  uint32_t out[4];
  api->collective(what, line, 0xffffffffu, &row, sizeof row, out, int32_t(sizeof(uint32_t) * N),
                  &complete_ldmatrix<N, Trans>);
  std::memcpy(r, out, sizeof(uint32_t) * N);
}

struct MmaIn {
  uint32_t a[4];
  uint32_t b[2];
  float c[4];
};

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}: D = A (16x16) B (16x8) + C in the
// fragment layouts of the PTX ISA (group g = lane / 4, t = lane % 4): A element i of a
// lane is row g + 8 [i % 4 >= 2], column 2t + i % 2 + 8 [i >= 4]; B element i is row
// 2t + i % 2 + 8 [i >= 2], column g; C element i is row g + 8 [i >= 2], column 2t + i % 2.
template <float (*ToFloat)(uint16_t)>
TILEC_EMU_UNCHECKED void complete_mma(TilecEmuLane* lanes, uint32_t, uint64_t) {
  float a[16][16], b[16][8], c[16][8];
  for (int l = 0; l < 32; ++l) {
    MmaIn in;
    std::memcpy(&in, lanes[l].in, sizeof in);
    int g = l / 4, t = l % 4;
    for (int i = 0; i < 8; ++i) {
      uint16_t h = uint16_t(in.a[i / 2] >> (16 * (i % 2)));
      a[g + 8 * ((i % 4) >= 2)][2 * t + i % 2 + 8 * (i >= 4)] = ToFloat(h);
    }
    for (int i = 0; i < 4; ++i) {
      uint16_t h = uint16_t(in.b[i / 2] >> (16 * (i % 2)));
      b[2 * t + i % 2 + 8 * (i >= 2)][g] = ToFloat(h);
      c[g + 8 * (i >= 2)][2 * t + i % 2] = in.c[i];
    }
  }
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    float d[4];
    for (int i = 0; i < 4; ++i) {
      int row = g + 8 * (i >= 2), col = 2 * t + i % 2;
      float acc = c[row][col];
      for (int k = 0; k < 16; ++k) acc += a[row][k] * b[k][col];
      d[i] = acc;
    }
    std::memcpy(lanes[l].out, d, sizeof d);
  }
}

TILEC_EMU_UNCHECKED inline float half_bits_to_float(uint16_t h) {
  return __half2float(__ushort_as_half(h));
}
TILEC_EMU_UNCHECKED inline float bfloat16_bits_to_float(uint16_t h) {
  return __bfloat162float(__ushort_as_bfloat16(h));
}

template <float (*ToFloat)(uint16_t)>
void mma(const char* what, float* c, const uint32_t* a, const uint32_t* b, int line) {
  MmaIn in;
  std::memcpy(in.a, a, sizeof in.a);
  std::memcpy(in.b, b, sizeof in.b);
  std::memcpy(in.c, c, sizeof in.c);
  api->collective(what, line, 0xffffffffu, &in, sizeof in, c, sizeof in.c, &complete_mma<ToFloat>);
}

}  // namespace tilec_emu::cuda

static inline void tilec_ldmatrix_x1(uint32_t* r, const void* row, int line = __builtin_LINE()) {
  tilec_emu::cuda::ldmatrix<1, false>("ldmatrix.x1", r, row, line);
}
static inline void tilec_ldmatrix_x1_trans(uint32_t* r, const void* row,
                                           int line = __builtin_LINE()) {
  tilec_emu::cuda::ldmatrix<1, true>("ldmatrix.x1.trans", r, row, line);
}
static inline void tilec_ldmatrix_x2(uint32_t* r, const void* row, int line = __builtin_LINE()) {
  tilec_emu::cuda::ldmatrix<2, false>("ldmatrix.x2", r, row, line);
}
static inline void tilec_ldmatrix_x2_trans(uint32_t* r, const void* row,
                                           int line = __builtin_LINE()) {
  tilec_emu::cuda::ldmatrix<2, true>("ldmatrix.x2.trans", r, row, line);
}
static inline void tilec_ldmatrix_x4(uint32_t* r, const void* row, int line = __builtin_LINE()) {
  tilec_emu::cuda::ldmatrix<4, false>("ldmatrix.x4", r, row, line);
}
static inline void tilec_ldmatrix_x4_trans(uint32_t* r, const void* row,
                                           int line = __builtin_LINE()) {
  tilec_emu::cuda::ldmatrix<4, true>("ldmatrix.x4.trans", r, row, line);
}
static inline void tilec_mma_m16n8k16_f16(float* c, const uint32_t* a, const uint32_t* b,
                                          int line = __builtin_LINE()) {
  tilec_emu::cuda::mma<&tilec_emu::cuda::half_bits_to_float>("mma.sync.m16n8k16.f16", c, a, b,
                                                             line);
}
static inline void tilec_mma_m16n8k16_bf16(float* c, const uint32_t* a, const uint32_t* b,
                                           int line = __builtin_LINE()) {
  tilec_emu::cuda::mma<&tilec_emu::cuda::bfloat16_bits_to_float>("mma.sync.m16n8k16.bf16", c, a, b,
                                                                 line);
}

// ---- tilec.bounds_check: the first index outside its shape stops the launch with the
// message the CPU backends give (the GPU build prints it and traps).
TILEC_EMU_UNCHECKED inline void tilec_bounds_violation(const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  tilec_emu::api->stop(message);
}

// ---- cp.async (cuda/cp_async.h) ------------------------------------------------------
static inline void tilec_cp_async_cg16(void* dst, const void* src, int src_bytes,
                                       int line = __builtin_LINE()) {
  tilec_emu::api->async_copy(dst, src, 16, src_bytes, line);
}
static inline void tilec_cp_async_ca8(void* dst, const void* src, int src_bytes,
                                      int line = __builtin_LINE()) {
  tilec_emu::api->async_copy(dst, src, 8, src_bytes, line);
}
static inline void tilec_cp_async_ca4(void* dst, const void* src, int src_bytes,
                                      int line = __builtin_LINE()) {
  tilec_emu::api->async_copy(dst, src, 4, src_bytes, line);
}
static inline void tilec_cp_async_commit() {
  tilec_emu::api->async_commit();
}
static inline void tilec_cp_async_wait_group(int pending, int line = __builtin_LINE()) {
  tilec_emu::api->async_wait(pending, line);
}

#endif  // TILEC_EMU_CUDA_H_
