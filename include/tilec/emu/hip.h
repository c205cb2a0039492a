// HIP C++ on tilec's device emulator: the names CodeGenHIP's output uses, defined for the
// host C++ compiler, so the `emulator` execution backend compiles the very source hiprtc
// compiles. The build force-includes this header with TILEC_EMU_HIP_WAVEFRONT set to the
// target's wavefront (64 on CDNA, 32 on RDNA); the source's preamble sees TILEC_EMULATOR
// and takes the definitions below for its MFMA helpers. What differs from a GPU:
//   - a block's threads run as fibers on one OS thread, switching only at __syncthreads
//     and wavefront collectives (__shfl_xor, MFMA), so between two such points a thread
//     runs alone;
//   - a collective waits for every existing lane of the wavefront (HIP's shuffles take no
//     mask) and checks that they reached the same one;
//   - v_mfma_f32_16x16x16{f16,bf16_1k} takes its operands and accumulator in AMD's lane
//     layouts (rocm/mfma_gemm.h) and adds the 16 products of each element in float32 in
//     order, where the matrix core adds them in an order and precision of its own;
//   - atomics are the host's; float math is the host's (-ffp-contract=off, as the GPU
//     build), so transcendental functions may differ in the last ulp.
// hip/hip_fp16.h comes from the emulator's include directory: tilec's own conversions.
#ifndef TILEC_EMU_HIP_H_
#define TILEC_EMU_HIP_H_

#define TILEC_EMULATOR 1
#ifndef TILEC_EMU_HIP_WAVEFRONT
#define TILEC_EMU_HIP_WAVEFRONT 64
#endif
#define TILEC_EMU_WARP_SIZE TILEC_EMU_HIP_WAVEFRONT
// HIP kernels here use static LDS only (64 KiB); the dynamic array is kept for the engine.
#define TILEC_EMU_MAX_DYNAMIC_SHARED 65536

#include "tilec/emu/device.h"

#include <hip/hip_fp16.h>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

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

struct uint2 {
  unsigned int x, y;
} __attribute__((aligned(8)));
struct uint4 {
  unsigned int x, y, z, w;
} __attribute__((aligned(16)));

#define threadIdx (tilec_emu::self().thread_idx)
#define blockIdx (tilec_emu::self().block_idx)
#define blockDim (tilec_emu::self().block_dim)
#define gridDim (tilec_emu::self().grid_dim)
#define warpSize TILEC_EMU_HIP_WAVEFRONT

inline void __syncthreads(int line = __builtin_LINE()) {
  tilec_emu::api->barrier("__syncthreads()", line);
}

inline float __int_as_float(int v) {
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}

// ---- Atomics: the host's, on any address (global memory is shared by the OS threads
// that run blocks; shared memory by one block's fibers) -------------------------------
namespace tilec_emu::hip {

enum class Op { kAdd, kMax, kMin, kAnd, kOr, kXor };

template <class T>
TILEC_EMU_UNCHECKED T update(T* p, T v, Op op) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static_assert(sizeof(T) == sizeof(Bits), "HIP atomics take 32- and 64-bit words");
  Bits* word = reinterpret_cast<Bits*>(p);
  Bits seen = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    T cur;
    std::memcpy(&cur, &seen, sizeof cur);
    T next = v;
    switch (op) {
      case Op::kAdd:
        next = cur + v;
        break;
      case Op::kMax:
        next = cur < v ? v : cur;
        break;
      case Op::kMin:
        next = v < cur ? v : cur;
        break;
      default:
        if constexpr (std::is_integral_v<T>)
          next = op == Op::kAnd ? (cur & v) : op == Op::kOr ? (cur | v) : (cur ^ v);
    }
    Bits want;
    std::memcpy(&want, &next, sizeof want);
    if (__atomic_compare_exchange_n(word, &seen, want, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      return cur;
  }
}

}  // namespace tilec_emu::hip

#define TILEC_EMU_HIP_ATOMIC(NAME, OP)                           \
  template <class T>                                             \
  TILEC_EMU_UNCHECKED T NAME(T* p, T v) {                        \
    return tilec_emu::hip::update(p, v, tilec_emu::hip::Op::OP); \
  }
TILEC_EMU_HIP_ATOMIC(atomicAdd, kAdd)
TILEC_EMU_HIP_ATOMIC(atomicMax, kMax)
TILEC_EMU_HIP_ATOMIC(atomicMin, kMin)
TILEC_EMU_HIP_ATOMIC(atomicAnd, kAnd)
TILEC_EMU_HIP_ATOMIC(atomicOr, kOr)
TILEC_EMU_HIP_ATOMIC(atomicXor, kXor)
#undef TILEC_EMU_HIP_ATOMIC
template <class T>
TILEC_EMU_UNCHECKED T atomicCAS(T* p, T expected, T desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}

// ---- Wavefront collectives -------------------------------------------------------------
namespace tilec_emu::hip {

// Every existing lane of the calling thread's wavefront (HIP's collectives have no mask).
inline uint64_t wavefront_lanes() {
  const TilecEmuThread& t = self();
  uint32_t threads = t.block_dim.x * t.block_dim.y * t.block_dim.z;
  uint32_t first = t.warp * uint32_t(TILEC_EMU_WARP_SIZE);
  uint32_t n = threads - first < uint32_t(TILEC_EMU_WARP_SIZE) ? threads - first
                                                               : uint32_t(TILEC_EMU_WARP_SIZE);
  return n >= 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1);
}

}  // namespace tilec_emu::hip

// HIP's __shfl_xor: the value of lane (lane ^ lane_mask) within the lane's segment of
// `width` lanes; a source past the segment gives the lane's own value.
template <class T>
T __shfl_xor(T v, int lane_mask, int width = TILEC_EMU_HIP_WAVEFRONT, int line = __builtin_LINE()) {
  static_assert(sizeof(T) <= 8, "wavefront shuffles move at most 8 bytes");
  int lane = int(tilec_emu::self().lane);
  int index = lane ^ lane_mask;
  if (index >= ((lane + width) & ~(width - 1))) index = lane;
  tilec_emu::ShuffleIn in{};
  std::memcpy(in.value, &v, sizeof v);
  in.source = index;
  uint8_t out[8];
  tilec_emu::api->collective("__shfl_xor", line, tilec_emu::hip::wavefront_lanes(), &in, sizeof in,
                             out, sizeof out, &tilec_emu::complete_shuffle);
  T result;
  std::memcpy(&result, out, sizeof result);
  return result;
}

// ---- MFMA (rocm/mfma_gemm.h), on wavefronts of 64 lanes only ---------------------------
#if TILEC_EMU_HIP_WAVEFRONT == 64
namespace tilec_emu::hip {

struct MfmaIn {
  uint16_t a[4];
  uint16_t b[4];
  float c[4];
};

// v_mfma_f32_16x16x16: lane l holds A[l % 16][4 (l / 16) + q], B[4 (l / 16) + q][l % 16] and
// D[4 (l / 16) + q][l % 16] for q = 0..3 (AMD's layouts; TileLang's mfma_layout.py).
template <float (*ToFloat)(uint16_t)>
TILEC_EMU_UNCHECKED void complete_mfma(TilecEmuLane* lanes, uint32_t, uint64_t) {
  float a[16][16], b[16][16], c[16][16];
  for (int l = 0; l < 64; ++l) {
    MfmaIn in;
    std::memcpy(&in, lanes[l].in, sizeof in);
    for (int q = 0; q < 4; ++q) {
      a[l % 16][4 * (l / 16) + q] = ToFloat(in.a[q]);
      b[4 * (l / 16) + q][l % 16] = ToFloat(in.b[q]);
      c[4 * (l / 16) + q][l % 16] = in.c[q];
    }
  }
  for (int l = 0; l < 64; ++l) {
    float d[4];
    for (int q = 0; q < 4; ++q) {
      int row = 4 * (l / 16) + q, col = l % 16;
      float acc = c[row][col];
      for (int k = 0; k < 16; ++k) acc += a[row][k] * b[k][col];
      d[q] = acc;
    }
    std::memcpy(lanes[l].out, d, sizeof d);
  }
}

TILEC_EMU_UNCHECKED inline float half_bits_to_float(uint16_t h) {
  return __half2float(__ushort_as_half(h));
}
TILEC_EMU_UNCHECKED inline float bfloat16_bits_to_float(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

template <float (*ToFloat)(uint16_t)>
void mfma(const char* what, float* c, const uint16_t* a, const uint16_t* b, int line) {
  MfmaIn in;
  std::memcpy(in.a, a, sizeof in.a);
  std::memcpy(in.b, b, sizeof in.b);
  std::memcpy(in.c, c, sizeof in.c);
  api->collective(what, line, ~uint64_t(0), &in, sizeof in, c, sizeof in.c,
                  &complete_mfma<ToFloat>);
}

}  // namespace tilec_emu::hip

static inline void tilec_mfma_f32_16x16x16_f16(float* c, const uint16_t* a, const uint16_t* b,
                                               int line = __builtin_LINE()) {
  tilec_emu::hip::mfma<&tilec_emu::hip::half_bits_to_float>("v_mfma_f32_16x16x16f16", c, a, b,
                                                            line);
}
static inline void tilec_mfma_f32_16x16x16_bf16(float* c, const uint16_t* a, const uint16_t* b,
                                                int line = __builtin_LINE()) {
  tilec_emu::hip::mfma<&tilec_emu::hip::bfloat16_bits_to_float>("v_mfma_f32_16x16x16bf16_1k", c, a,
                                                                b, line);
}
#endif

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

#endif  // TILEC_EMU_HIP_H_
