// The Metal Shading Language shim of tilec's device emulator -- a test aid, not a Metal
// implementation. It defines, for the host C++ compiler, the MSL names CodeGenMetal's
// output uses (and nothing more), so the `emulator` execution backend compiles the very
// MSL source the metal backend emits and runs it on the CPU:
//   - address spaces: `device`, `constant` (const) and `thread` are empty; `threadgroup`
//     is thread_local, so a kernel's threadgroup arrays are one copy per running
//     threadgroup (its threads are fibers of one OS thread); `kernel` is empty and the
//     [[buffer(i)]] / [[...]] attributes are ignored by the host compiler;
//   - a kernel's parameters: the launch's arguments, then `device atomic_int*
//     tilec_status` when the kernel has one (the exported tilec_status_<kernel> word the
//     engine reads), then the three attribute arguments CodeGenMetal always prints last, in
//     its order: threadgroup_position_in_grid, thread_position_in_threadgroup,
//     thread_index_in_threadgroup (TILEC_EMU_KERNEL is redefined below to fill them);
//   - threadgroup_barrier is the engine's block barrier; simd_sum and simd_shuffle_xor are
//     warp collectives over the 32-lane simdgroup (simdgroups are formed from the flat
//     thread index, lanes that exist take part);
//   - simdgroup_matrix<T, 8, 8> with Apple's semantics: 8x8 per 32-lane simdgroup, two
//     elements per lane in thread_elements() (lane l holds row 4 (l / 16) + (l / 2) % 4,
//     columns 4 ((l / 8) % 2) + 2 (l % 2) + {0, 1}); simdgroup_load, simdgroup_store and
//     simdgroup_multiply_accumulate are cooperative: every lane of the simdgroup must call
//     them with the same pointer, row length and transpose (else the launch fails), and
//     multiply_accumulate sums the 8 products of each element in k order in float;
//   - atomics are the host's; half and bfloat (metal_stdlib of the emulator's include
//     directory) round to nearest even with tilec's conversions; math is the host's with
//     -ffp-contract=off (the source asks Metal for safe math and no contraction).
// What it cannot check -- Apple's compiler's own rules: that the source compiles with the
// Metal compiler at all (address-space correctness of pointers and casts, MSL's
// restrictions on C++ such as no recursion or function pointers, which types a buffer or
// attribute argument may have, the [[buffer(i)]] table, MSL version features such as
// bfloat (3.1) or atomic_float (3.0)); the real limits of a device (threadgroup memory is
// checked at compile time against 32 KiB, threads per threadgroup against the kernel's
// max_total_threads_per_threadgroup); the order in which Apple's simd_sum and
// simdgroup_multiply_accumulate combine (float results may differ in the last bits); and
// behaviour that depends on timing or divergence, since threads switch only at barriers
// and simdgroup operations.
#ifndef TILEC_EMU_METAL_H_
#define TILEC_EMU_METAL_H_

#define TILEC_EMULATOR 1
#define TILEC_EMU_WARP_SIZE 32
// MSL kernels declare their threadgroup arrays; there is no dynamic array to size.
#define TILEC_EMU_MAX_DYNAMIC_SHARED 16

#include "tilec/emu/device.h"

#include <metal_stdlib>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

namespace metal {

struct uint3 {
  uint32_t x, y, z;
};
struct ulong2 {
  ulong x, y;
  ulong2(ulong v = 0) : x(v), y(v) {}  // MSL converts a scalar to a vector implicitly
};

template <class To, class From>
inline To as_type(From from) {
  static_assert(sizeof(To) == sizeof(From), "as_type keeps the size");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

// MSL's overloaded max/min (the rest of its math is the host's <cmath>).
template <class T>
inline T max(T a, T b) {
  return a < b ? b : a;
}
template <class T>
inline T min(T a, T b) {
  return b < a ? b : a;
}

// ---- Barriers ---------------------------------------------------------------------------
enum class mem_flags : unsigned { mem_none = 0, mem_device = 1, mem_threadgroup = 2 };
inline mem_flags operator|(mem_flags a, mem_flags b) {
  return mem_flags(unsigned(a) | unsigned(b));
}
inline void threadgroup_barrier(mem_flags, int line = __builtin_LINE()) {
  tilec_emu::api->barrier("threadgroup_barrier", line);
}

// ---- Atomics: the host's --------------------------------------------------------------
enum memory_order { memory_order_relaxed };
template <class T>
struct atomic {
  T value;
};
typedef atomic<int> atomic_int;
typedef atomic<unsigned int> atomic_uint;
typedef atomic<float> atomic_float;

#define TILEC_EMU_MSL_FETCH(NAME, BUILTIN)                                  \
  template <class T>                                                        \
  TILEC_EMU_UNCHECKED inline T NAME(atomic<T>* object, T v, memory_order) { \
    return BUILTIN(&object->value, v, __ATOMIC_SEQ_CST);                    \
  }
TILEC_EMU_MSL_FETCH(atomic_fetch_add_explicit, __atomic_fetch_add)
TILEC_EMU_MSL_FETCH(atomic_fetch_and_explicit, __atomic_fetch_and)
TILEC_EMU_MSL_FETCH(atomic_fetch_or_explicit, __atomic_fetch_or)
TILEC_EMU_MSL_FETCH(atomic_fetch_xor_explicit, __atomic_fetch_xor)
#undef TILEC_EMU_MSL_FETCH
template <class T>
TILEC_EMU_UNCHECKED inline T atomic_load_explicit(atomic<T>* object, memory_order) {
  return __atomic_load_n(&object->value, __ATOMIC_SEQ_CST);
}
template <class T>
TILEC_EMU_UNCHECKED inline bool atomic_compare_exchange_weak_explicit(atomic<T>* object,
                                                                      T* expected, T desired,
                                                                      memory_order, memory_order) {
  return __atomic_compare_exchange_n(&object->value, expected, desired, true, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST);
}
template <class T>
TILEC_EMU_UNCHECKED inline T atomic_fetch_max_explicit(atomic<T>* object, T v, memory_order) {
  T seen = __atomic_load_n(&object->value, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(&object->value, &seen, seen < v ? v : seen, true,
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return seen;
}
template <class T>
TILEC_EMU_UNCHECKED inline T atomic_fetch_min_explicit(atomic<T>* object, T v, memory_order) {
  T seen = __atomic_load_n(&object->value, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(&object->value, &seen, v < seen ? v : seen, true,
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return seen;
}
// atomic_float's add: a compare-and-swap loop on the bits (no host builtin adds floats).
TILEC_EMU_UNCHECKED inline float atomic_fetch_add_explicit(atomic<float>* object, float v,
                                                           memory_order) {
  uint32_t* bits = reinterpret_cast<uint32_t*>(&object->value);
  uint32_t seen = __atomic_load_n(bits, __ATOMIC_SEQ_CST);
  for (;;) {
    float cur = as_type<float>(seen);
    if (__atomic_compare_exchange_n(bits, &seen, as_type<uint32_t>(cur + v), true, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
      return cur;
  }
}

}  // namespace metal

// ---- Simdgroup collectives --------------------------------------------------------------
namespace tilec_emu::msl {

// The lanes of the running thread's simdgroup that exist in the threadgroup.
inline uint64_t simdgroup_mask() {
  const TilecEmuThread& t = tilec_emu::self();
  uint32_t threads = t.block_dim.x * t.block_dim.y * t.block_dim.z;
  uint32_t n = threads - t.warp * 32u < 32u ? threads - t.warp * 32u : 32u;
  return n == 32u ? 0xffffffffull : ((uint64_t(1) << n) - 1);
}

// Reports a simdgroup operation's access of one lane to the race checker (shared memory
// only, as the instrumentation's callbacks do).
TILEC_EMU_UNCHECKED inline void note_lane(const void* addr, int32_t bytes, int32_t is_write,
                                          const TilecEmuLane& lane) {
  uintptr_t at = reinterpret_cast<uintptr_t>(addr);
  if (at < state.shared_begin || at >= state.shared_end) return;
  api->access(addr, bytes, is_write, nullptr, lane.line, int32_t(lane.flat));
}

template <class T>
TILEC_EMU_UNCHECKED void complete_sum(TilecEmuLane* lanes, uint32_t warp_size, uint64_t mask) {
  T sum{};
  for (uint32_t l = 0; l < warp_size; ++l) {
    if (!((mask >> l) & 1)) continue;
    T v;
    std::memcpy(&v, lanes[l].in, sizeof v);
    sum = l == 0 ? v : T(sum + v);
  }
  for (uint32_t l = 0; l < warp_size; ++l)
    if ((mask >> l) & 1) std::memcpy(lanes[l].out, &sum, sizeof sum);
}

// ---- simdgroup_matrix<T, 8, 8> ------------------------------------------------------------
// Apple's layout of a lane's two elements: row, and the first of two adjacent columns.
inline int matrix_row(int lane) {
  return 4 * (lane / 16) + (lane / 2) % 4;
}
inline int matrix_col(int lane) {
  return 4 * ((lane / 8) % 2) + 2 * (lane % 2);
}

// What every lane brings to a load or store: they must agree on all of it but the values.
struct MatrixAccess {
  void* pointer;
  uint64_t row_length;
  uint32_t transpose;
  uint8_t values[16];  // a store's two elements
};

template <class T, bool Store>
TILEC_EMU_UNCHECKED void complete_access(TilecEmuLane* lanes, uint32_t warp_size, uint64_t mask) {
  MatrixAccess first;
  std::memcpy(&first, lanes[0].in, sizeof first);
  uint8_t agree = 1;
  for (uint32_t l = 0; l < warp_size; ++l) {
    MatrixAccess in;
    std::memcpy(&in, lanes[l].in, sizeof in);
    if (in.pointer != first.pointer || in.row_length != first.row_length ||
        in.transpose != first.transpose)
      agree = 0;
  }
  for (uint32_t l = 0; agree && l < warp_size; ++l) {
    MatrixAccess in;
    std::memcpy(&in, lanes[l].in, sizeof in);
    T* base = static_cast<T*>(first.pointer);
    T values[2];
    std::memcpy(values, in.values, sizeof values);
    for (int e = 0; e < 2; ++e) {
      uint64_t row = uint64_t(matrix_row(int(l))), col = uint64_t(matrix_col(int(l)) + e);
      T* element = first.transpose ? base + col * first.row_length + row
                                   : base + row * first.row_length + col;
      note_lane(element, int32_t(sizeof(T)), Store ? 1 : 0, lanes[l]);
      if (Store) {
        *element = values[e];
      } else {
        values[e] = *element;
      }
    }
    std::memcpy(lanes[l].out, values, sizeof values);
  }
  for (uint32_t l = 0; l < warp_size; ++l) lanes[l].out[2 * sizeof(T)] = agree;
  (void)mask;
}

template <class T, bool Store>
void matrix_access(const char* what, T* values, const void* pointer, uint64_t row_length,
                   bool transpose, int line) {
  static_assert(sizeof(T) <= 4, "simdgroup matrices hold 16- or 32-bit elements");
  MatrixAccess in{};
  in.pointer = const_cast<void*>(pointer);
  in.row_length = row_length;
  in.transpose = transpose ? 1u : 0u;
  std::memcpy(in.values, values, 2 * sizeof(T));
  uint8_t out[2 * sizeof(T) + 1];
  api->collective(what, line, 0xffffffffull, &in, sizeof in, out, sizeof out,
                  &complete_access<T, Store>);
  if (!out[2 * sizeof(T)]) {
    api->fail(
        "the lanes of a simdgroup pass different pointers, row lengths or transposes to a "
        "cooperative simdgroup_matrix load or store; Metal requires every lane to pass the same",
        line);
  }
  if (!Store) std::memcpy(values, out, 2 * sizeof(T));
}

// D = A B + C over the simdgroup: each lane brings its two elements of A, B and C in float.
struct MultiplyIn {
  float a[2], b[2], c[2];
};

TILEC_EMU_UNCHECKED inline void complete_multiply(TilecEmuLane* lanes, uint32_t warp_size,
                                                  uint64_t) {
  float a[8][8], b[8][8], c[8][8];
  for (uint32_t l = 0; l < warp_size; ++l) {
    MultiplyIn in;
    std::memcpy(&in, lanes[l].in, sizeof in);
    int row = matrix_row(int(l)), col = matrix_col(int(l));
    for (int e = 0; e < 2; ++e) {
      a[row][col + e] = in.a[e];
      b[row][col + e] = in.b[e];
      c[row][col + e] = in.c[e];
    }
  }
  for (uint32_t l = 0; l < warp_size; ++l) {
    int row = matrix_row(int(l)), col = matrix_col(int(l));
    float d[2];
    for (int e = 0; e < 2; ++e) {
      float acc = c[row][col + e];
      for (int k = 0; k < 8; ++k) acc += a[row][k] * b[k][col + e];
      d[e] = acc;
    }
    std::memcpy(lanes[l].out, d, sizeof d);
  }
}

}  // namespace tilec_emu::msl

namespace metal {

template <class T>
T simd_sum(T v, int line = __builtin_LINE()) {
  static_assert(sizeof(T) <= 8, "simd_sum takes a scalar");
  T out;
  tilec_emu::api->collective("simd_sum", line, tilec_emu::msl::simdgroup_mask(), &v, sizeof v, &out,
                             sizeof out, &tilec_emu::msl::complete_sum<T>);
  return out;
}

template <class T>
T simd_shuffle_xor(T v, ushort mask, int line = __builtin_LINE()) {
  static_assert(sizeof(T) <= 8, "simd_shuffle_xor moves a scalar");
  tilec_emu::ShuffleIn in{};
  std::memcpy(in.value, &v, sizeof v);
  in.source = int32_t(tilec_emu::self().lane ^ uint32_t(mask));
  uint8_t out[8];
  tilec_emu::api->collective("simd_shuffle_xor", line, tilec_emu::msl::simdgroup_mask(), &in,
                             sizeof in, out, sizeof out, &tilec_emu::complete_shuffle);
  T result;
  std::memcpy(&result, out, sizeof result);
  return result;
}

template <class T>
struct vec2_ref {
  T* elements;
  T& operator[](int i) const { return elements[i]; }
};

template <class T, int Cols, int Rows>
struct simdgroup_matrix {
  static_assert(Cols == 8 && Rows == 8, "the emulator's simdgroup matrices are 8x8");
  T elements[2];  // this lane's, in Apple's layout (tilec_emu::msl::matrix_row/col)
  vec2_ref<T> thread_elements() { return {elements}; }
};
typedef simdgroup_matrix<float, 8, 8> simdgroup_float8x8;
typedef simdgroup_matrix<half, 8, 8> simdgroup_half8x8;

template <class T>
void simdgroup_load(simdgroup_matrix<T, 8, 8>& d, const T* src, ulong elements_per_row = 8,
                    ulong2 origin = 0, bool transpose = false, int line = __builtin_LINE()) {
  const T* at = transpose ? src + origin.x * elements_per_row + origin.y
                          : src + origin.y * elements_per_row + origin.x;
  tilec_emu::msl::matrix_access<T, false>("simdgroup_load", d.elements, at, elements_per_row,
                                          transpose, line);
}

template <class T>
void simdgroup_store(simdgroup_matrix<T, 8, 8> m, T* dst, ulong elements_per_row = 8,
                     ulong2 origin = 0, bool transpose = false, int line = __builtin_LINE()) {
  T* at = transpose ? dst + origin.x * elements_per_row + origin.y
                    : dst + origin.y * elements_per_row + origin.x;
  tilec_emu::msl::matrix_access<T, true>("simdgroup_store", m.elements, at, elements_per_row,
                                         transpose, line);
}

template <class TD, class TA, class TB, class TC>
void simdgroup_multiply_accumulate(simdgroup_matrix<TD, 8, 8>& d,
                                   const simdgroup_matrix<TA, 8, 8>& a,
                                   const simdgroup_matrix<TB, 8, 8>& b,
                                   const simdgroup_matrix<TC, 8, 8>& c,
                                   int line = __builtin_LINE()) {
  tilec_emu::msl::MultiplyIn in;
  for (int e = 0; e < 2; ++e) {
    in.a[e] = float(a.elements[e]);
    in.b[e] = float(b.elements[e]);
    in.c[e] = float(c.elements[e]);
  }
  float out[2];
  tilec_emu::api->collective("simdgroup_multiply_accumulate", line, 0xffffffffull, &in, sizeof in,
                             out, sizeof out, &tilec_emu::msl::complete_multiply);
  for (int e = 0; e < 2; ++e) d.elements[e] = TD(out[e]);
}

}  // namespace metal

// ---- Kernel parameters: the launch's arguments, the status word, the attribute arguments --
namespace tilec_emu::msl {

inline constexpr size_t kAttributeParams = 3;  // group position, thread position, flat index

template <class P>
using Bare = std::remove_cv_t<std::remove_reference_t<P>>;

template <class T>
T parameter(const TilecEmuArg* args, size_t i, size_t n, int32_t* status) {
  const TilecEmuThread& t = tilec_emu::self();
  if constexpr (std::is_same_v<T, metal::uint3>) {
    const TilecEmuDim3& d = i == n - kAttributeParams ? t.block_idx : t.thread_idx;
    return metal::uint3{d.x, d.y, d.z};
  } else if constexpr (std::is_same_v<T, metal::atomic_int*>) {
    return reinterpret_cast<metal::atomic_int*>(status);
  } else {
    if constexpr (std::is_same_v<T, uint>)
      if (i == n - 1) return t.flat;
    return tilec_emu::argument<T>(args[i]);
  }
}

template <class... P, size_t... I>
void invoke_kernel(void (*fn)(P...), const TilecEmuArg* args, int32_t* status,
                   std::index_sequence<I...>) {
  constexpr size_t n = sizeof...(P);
  // Values first, so `constant T&` parameters bind to them.
  std::tuple<Bare<P>...> values{parameter<Bare<P>>(args, I, n, status)...};
  fn(std::get<I>(values)...);
}

template <class... P>
void invoke_kernel(void (*fn)(P...), const TilecEmuArg* args, int32_t* status) {
  static_assert(sizeof...(P) >= kAttributeParams, "an MSL kernel of tilec ends with 3 attributes");
  invoke_kernel(fn, args, status, std::index_sequence_for<P...>{});
}

// The launch passes every parameter but the status word and the attribute arguments.
template <class... P>
constexpr int32_t launch_params(void (*)(P...)) {
  return int32_t(sizeof...(P) - kAttributeParams) -
         int32_t((std::is_same_v<Bare<P>, metal::atomic_int*> + ... + 0));
}

}  // namespace tilec_emu::msl

#undef TILEC_EMU_KERNEL
#define TILEC_EMU_KERNEL(NAME, BOUNDS)                                                        \
  TILEC_EMU_EXPORT int32_t tilec_status_##NAME = 0;                                           \
  static void tilec_emu_invoke_##NAME(const TilecEmuArg* args) {                              \
    tilec_emu::msl::invoke_kernel(&NAME, args, &tilec_status_##NAME);                         \
  }                                                                                           \
  TILEC_EMU_EXPORT const TilecEmuKernelInfo* tilec_emu_kernel_##NAME(void) {                  \
    static const TilecEmuKernelInfo info{#NAME, BOUNDS, tilec_emu::msl::launch_params(&NAME), \
                                         TILEC_EMU_WARP_SIZE, &tilec_emu_invoke_##NAME};      \
    return &info;                                                                             \
  }

// MSL's keywords and address spaces (see the header comment). Last: nothing above may
// spell them.
#define kernel
#define device
#define constant const
#define thread
#define threadgroup thread_local

#endif  // TILEC_EMU_METAL_H_
