/* The calling convention between tilec's device emulator (the `emulator` execution
 * backend, src/exec/emulator/) and a device library it built: GPU source compiled by the
 * host C++ compiler against a dialect header (tilec/emu/cuda.h, ...) that includes
 * tilec/emu/device.h.
 *
 * The library exports, per kernel NAME, `const TilecEmuKernelInfo*
 * tilec_emu_kernel_NAME(void)`, and the three functions named below (tilec_emu_bind,
 * tilec_emu_shared, tilec_emu_set_self). The engine runs the grid: blocks over the
 * runtime's thread pool, a block's threads as fibers on one OS thread. The library calls
 * the engine (TilecEmuApi) at each point where a GPU thread waits for others (a block
 * barrier, a warp collective) and, with race checking, at each access of shared memory.
 * Plain C, so both sides agree on the layout whatever compiled them.
 */
#ifndef TILEC_EMU_ABI_H_
#define TILEC_EMU_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILEC_EMU_ABI_VERSION 1

/* TilecEmuLaunch.flags */
#define TILEC_EMU_RACECHECK 1u

typedef struct TilecEmuDim3 {
  uint32_t x, y, z;
} TilecEmuDim3;

/* What device code reads about the GPU thread it runs as; one per fiber. */
typedef struct TilecEmuThread {
  TilecEmuDim3 thread_idx;
  TilecEmuDim3 block_idx;
  TilecEmuDim3 block_dim;
  TilecEmuDim3 grid_dim;
  uint32_t flat; /* thread_idx.x + block_dim.x * (thread_idx.y + block_dim.y * thread_idx.z) */
  uint32_t lane; /* flat % warp size */
  uint32_t warp; /* flat / warp size */
  uint32_t warp_size;
} TilecEmuThread;

/* One lane's part of a warp collective: what it brought in, what it takes out. */
typedef struct TilecEmuLane {
  uint8_t in[64];
  uint8_t out[64];
  uint32_t flat; /* the lane's flat thread index (race checking attributes reads to it) */
  int32_t line;  /* the device source line it arrived from */
} TilecEmuLane;

/* Computes every participating lane's `out` from all lanes' `in`, once, when the last
 * lane of `mask` arrives; lanes outside the mask are left alone. */
typedef void (*TilecEmuComplete)(TilecEmuLane* lanes, uint32_t warp_size, uint64_t mask);

typedef struct TilecEmuApi {
  int32_t abi_version;
  /* A block barrier (__syncthreads) at `line` of the device source. */
  void (*barrier)(const char* what, int32_t line);
  /* A warp collective: deposits in (at most 64 bytes), waits for every lane of mask to
   * arrive at the same collective, then copies this lane's out (at most 64 bytes). */
  void (*collective)(const char* what, int32_t line, uint64_t mask, const void* in,
                     int32_t in_bytes, void* out, int32_t out_bytes, TilecEmuComplete complete);
  /* Race checking: an access of `bytes` at addr by the thread whose flat index is
   * `flat` (-1: the running one), from the instruction at pc (null: from `line`). Only
   * shared memory is checked; the library calls it only for addresses inside the range
   * tilec_emu_shared gave. */
  void (*access)(const void* addr, int32_t bytes, int32_t is_write, const void* pc, int32_t line,
                 int32_t flat);
  /* Asynchronous global->shared copies (cp.async): queued per thread, grouped by commit,
   * performed when a wait lets fewer than `pending` groups stay in flight (the latest
   * moment the GPU may complete them), and at the thread's end. src_bytes < bytes
   * zero-fills the rest. */
  void (*async_copy)(void* dst, const void* src, int32_t bytes, int32_t src_bytes, int32_t line);
  void (*async_commit)(void);
  void (*async_wait)(int32_t pending, int32_t line);
  /* Stops the launch with an error naming the running thread (no return). */
  void (*fail)(const char* message, int32_t line);
  /* Stops the launch with `message` as its whole error, as a CPU backend reports the same
   * condition (an index outside its shape under tilec.bounds_check; no return). */
  void (*stop)(const char* message);
} TilecEmuApi;

/* One argument: the layout of TilecDeviceArg (runtime/abi.h). */
typedef struct TilecEmuArg {
  int32_t kind; /* 0 buffer, 1 int, 2 float */
  int32_t bits;
  union {
    void* buffer;
    int64_t i;
    double f;
  } v;
} TilecEmuArg;

/* One kernel of the library. */
typedef struct TilecEmuKernelInfo {
  const char* name;
  int32_t launch_bounds; /* 0: none declared */
  int32_t num_params;
  int32_t warp_size; /* the dialect's: 32 for CUDA, 64 or 32 for HIP */
  /* Calls the kernel with the launch's arguments as the running fiber's GPU thread. */
  void (*invoke)(const TilecEmuArg* args);
} TilecEmuKernelInfo;

/* Shared memory of the block about to run on the calling OS thread, as the library
 * lays it out: [begin, end), with [skip_begin, skip_end) the library's own state inside
 * it, and the dynamic array (`extern __shared__`) at `dynamic` of dynamic_capacity bytes. */
typedef struct TilecEmuSharedRange {
  uint8_t* begin;
  uint8_t* end;
  uint8_t* skip_begin;
  uint8_t* skip_end;
  uint8_t* dynamic;
  int64_t dynamic_capacity;
} TilecEmuSharedRange;

/* Exported by the library. tilec_emu_bind: the engine, once after loading.
 * tilec_emu_shared: the calling OS thread's shared memory, before each block it runs
 * (race_check turns the per-access calls on or off for that thread).
 * tilec_emu_set_self: the GPU thread the calling OS thread runs next (before every switch
 * into a fiber). tilec_emu_kernel_NAME: a kernel's description. */
typedef void (*TilecEmuBindFn)(const TilecEmuApi* api);
typedef void (*TilecEmuSharedFn)(TilecEmuSharedRange* out, int32_t race_check);
typedef void (*TilecEmuSetSelfFn)(TilecEmuThread* self);
typedef const TilecEmuKernelInfo* (*TilecEmuKernelFn)(void);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_EMU_ABI_H_ */
