// The device side of tilec's emulator, shared by every dialect header (tilec/emu/cuda.h,
// ...): what a device library built by the `emulator` execution backend needs besides the
// dialect's own names. It holds the engine's entry points (bound at load), the running GPU
// thread (set by the engine before each switch into a fiber), the exported functions of
// tilec/emu/abi.h, the kernel trampolines (TILEC_EMU_KERNEL), and, when the library is
// compiled with -fsanitize=thread for race checking, the instrumentation's callbacks: they
// pass accesses of this thread's shared memory to the engine and ignore the rest.
//
// Shared memory is thread_local storage of this library: a block's threads are fibers of
// one OS thread, so `__shared__` (thread_local) arrays are one copy per block, and the
// dynamic array is one more thread_local of TILEC_EMU_MAX_DYNAMIC_SHARED bytes.
// A dialect defines TILEC_EMU_WARP_SIZE and TILEC_EMU_MAX_DYNAMIC_SHARED first.
#ifndef TILEC_EMU_DEVICE_H_
#define TILEC_EMU_DEVICE_H_

#include "tilec/emu/abi.h"

#include <link.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#if !defined(TILEC_EMU_WARP_SIZE) || !defined(TILEC_EMU_MAX_DYNAMIC_SHARED)
#error "a dialect header defines TILEC_EMU_WARP_SIZE and TILEC_EMU_MAX_DYNAMIC_SHARED first"
#endif

// Functions the race checker must not see: the instrumentation's callbacks and the
// engine-side helpers (collective completions, atomics) whose accesses are reported
// explicitly or are not plain accesses.
#define TILEC_EMU_UNCHECKED __attribute__((no_sanitize("thread"), noinline))
#define TILEC_EMU_EXPORT extern "C" __attribute__((visibility("default")))

namespace tilec_emu {

// What this OS thread runs: the GPU thread, and its shared memory for the race checker.
struct ThreadState {
  TilecEmuThread* self;
  uintptr_t shared_begin;
  uintptr_t shared_end;  // empty unless race checking is on
};

inline const TilecEmuApi* api = nullptr;
inline thread_local ThreadState state{};

inline const TilecEmuThread& self() {
  return *state.self;
}

// Converts one launch argument to the kernel parameter's type.
template <class T>
T argument(const TilecEmuArg& a) {
  if constexpr (std::is_pointer_v<T>) {
    return static_cast<T>(a.v.buffer);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(a.v.f);
  } else {
    return static_cast<T>(a.v.i);
  }
}

template <class... P, size_t... I>
void invoke(void (*kernel)(P...), const TilecEmuArg* args, std::index_sequence<I...>) {
  kernel(argument<std::remove_cv_t<P>>(args[I])...);
}

template <class... P>
void invoke(void (*kernel)(P...), const TilecEmuArg* args) {
  invoke(kernel, args, std::index_sequence_for<P...>{});
}

template <class... P>
constexpr int32_t param_count(void (*)(P...)) {
  return int32_t(sizeof...(P));
}

// Reports an access to the engine when it falls in this thread's shared memory.
TILEC_EMU_UNCHECKED inline void note(const void* addr, int32_t bytes, int32_t is_write,
                                     const void* pc) {
  uintptr_t at = reinterpret_cast<uintptr_t>(addr);
  if (at < state.shared_begin || at >= state.shared_end) return;
  uintptr_t own = reinterpret_cast<uintptr_t>(&state);
  if (at >= own && at < own + sizeof state) return;
  api->access(addr, bytes, is_write, pc, 0, -1);
}

// ---- Lane shuffles, which every dialect's shuffles complete with ----
// A shuffle lane's part: its value and the lane it reads. A source that is negative, past
// the warp or outside the mask gives an undefined value on a GPU; the lane's own here.
struct ShuffleIn {
  uint8_t value[8];
  int32_t source;
};

TILEC_EMU_UNCHECKED inline void complete_shuffle(TilecEmuLane* lanes, uint32_t warp_size,
                                                 uint64_t mask) {
  for (uint32_t l = 0; l < warp_size; ++l) {
    if (!((mask >> l) & 1)) continue;
    ShuffleIn in;
    std::memcpy(&in, lanes[l].in, sizeof in);
    bool valid = in.source >= 0 && uint32_t(in.source) < warp_size && ((mask >> in.source) & 1);
    uint32_t from = valid ? uint32_t(in.source) : l;
    std::memcpy(lanes[l].out, lanes[from].in, sizeof in.value);
  }
}

}  // namespace tilec_emu

// The dynamic shared array (`extern __shared__ T name[]` resolves here, by name).
alignas(1024) thread_local unsigned char tilec_dynamic_shared[TILEC_EMU_MAX_DYNAMIC_SHARED];

namespace tilec_emu::detail {

struct TlsSearch {
  uintptr_t probe;
  uint8_t* begin;
  uint8_t* end;
};

// This library's thread-local block for the calling thread: all its shared arrays.
TILEC_EMU_UNCHECKED inline int find_tls(struct dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<TlsSearch*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_TLS || info->dlpi_tls_data == nullptr) continue;
    auto* begin = static_cast<uint8_t*>(info->dlpi_tls_data);
    if (search->probe < uintptr_t(begin) || search->probe >= uintptr_t(begin) + ph.p_memsz)
      continue;
    search->begin = begin;
    search->end = begin + ph.p_memsz;
    return 1;
  }
  return 0;
}

}  // namespace tilec_emu::detail

TILEC_EMU_EXPORT TILEC_EMU_UNCHECKED void tilec_emu_bind(const TilecEmuApi* api) {
  tilec_emu::api = api;
}

TILEC_EMU_EXPORT TILEC_EMU_UNCHECKED void tilec_emu_set_self(TilecEmuThread* self) {
  tilec_emu::state.self = self;
}

TILEC_EMU_EXPORT TILEC_EMU_UNCHECKED void tilec_emu_shared(TilecEmuSharedRange* out,
                                                           int32_t race_check) {
  tilec_emu::detail::TlsSearch search{reinterpret_cast<uintptr_t>(&tilec_dynamic_shared[0]),
                                      nullptr, nullptr};
  dl_iterate_phdr(&tilec_emu::detail::find_tls, &search);
  if (search.begin == nullptr) {  // cannot happen for a loaded library; check nothing
    search.begin = tilec_dynamic_shared;
    search.end = tilec_dynamic_shared + sizeof tilec_dynamic_shared;
  }
  out->begin = search.begin;
  out->end = search.end;
  out->skip_begin = reinterpret_cast<uint8_t*>(&tilec_emu::state);
  out->skip_end = out->skip_begin + sizeof tilec_emu::state;
  out->dynamic = tilec_dynamic_shared;
  out->dynamic_capacity = sizeof tilec_dynamic_shared;
  tilec_emu::state.shared_begin = race_check ? uintptr_t(search.begin) : 0;
  tilec_emu::state.shared_end = race_check ? uintptr_t(search.end) : 0;
}

// The instrumentation's callbacks (-fsanitize=thread without its run-time library).
// Not inline: the compiler adds the calls after deciding which inline functions to emit.
#if defined(__SANITIZE_THREAD__) || defined(TILEC_EMU_RACE_CHECK)
#define TILEC_EMU_CALLBACK __attribute__((no_sanitize("thread"), used))
extern "C" {
TILEC_EMU_CALLBACK void __tsan_init() {}
TILEC_EMU_CALLBACK void __tsan_func_entry(void*) {}
TILEC_EMU_CALLBACK void __tsan_func_exit() {}
TILEC_EMU_CALLBACK void __tsan_vptr_update(void**, void*) {}
TILEC_EMU_CALLBACK void __tsan_vptr_read(void**) {}
#define TILEC_EMU_TSAN_ACCESS(N)                               \
  TILEC_EMU_CALLBACK void __tsan_read##N(void* a) {            \
    tilec_emu::note(a, N, 0, __builtin_return_address(0));     \
  }                                                            \
  TILEC_EMU_CALLBACK void __tsan_write##N(void* a) {           \
    tilec_emu::note(a, N, 1, __builtin_return_address(0));     \
  }                                                            \
  TILEC_EMU_CALLBACK void __tsan_unaligned_read##N(void* a) {  \
    tilec_emu::note(a, N, 0, __builtin_return_address(0));     \
  }                                                            \
  TILEC_EMU_CALLBACK void __tsan_unaligned_write##N(void* a) { \
    tilec_emu::note(a, N, 1, __builtin_return_address(0));     \
  }                                                            \
  TILEC_EMU_CALLBACK void __tsan_volatile_read##N(void* a) {   \
    tilec_emu::note(a, N, 0, __builtin_return_address(0));     \
  }                                                            \
  TILEC_EMU_CALLBACK void __tsan_volatile_write##N(void* a) {  \
    tilec_emu::note(a, N, 1, __builtin_return_address(0));     \
  }
TILEC_EMU_TSAN_ACCESS(1)
TILEC_EMU_TSAN_ACCESS(2)
TILEC_EMU_TSAN_ACCESS(4)
TILEC_EMU_TSAN_ACCESS(8)
TILEC_EMU_TSAN_ACCESS(16)
#undef TILEC_EMU_TSAN_ACCESS
TILEC_EMU_CALLBACK void __tsan_read_range(void* a, size_t n) {
  tilec_emu::note(a, int32_t(n), 0, __builtin_return_address(0));
}
TILEC_EMU_CALLBACK void __tsan_write_range(void* a, size_t n) {
  tilec_emu::note(a, int32_t(n), 1, __builtin_return_address(0));
}
}
#endif

// One kernel's description for the engine; BOUNDS is its __launch_bounds__ (0: none).
#define TILEC_EMU_KERNEL(NAME, BOUNDS)                                                   \
  static void tilec_emu_invoke_##NAME(const TilecEmuArg* args) {                         \
    tilec_emu::invoke(&NAME, args);                                                      \
  }                                                                                      \
  TILEC_EMU_EXPORT const TilecEmuKernelInfo* tilec_emu_kernel_##NAME(void) {             \
    static const TilecEmuKernelInfo info{#NAME, BOUNDS, tilec_emu::param_count(&NAME),   \
                                         TILEC_EMU_WARP_SIZE, &tilec_emu_invoke_##NAME}; \
    return &info;                                                                        \
  }

#endif  // TILEC_EMU_DEVICE_H_
