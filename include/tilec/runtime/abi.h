/* The calling convention between generated host code and the tilec runtime.
 *
 * Every compiled kernel exports one host entry per PrimFunc, named by the
 * function's global_symbol:
 *
 *   int32_t NAME(const TilecArg* args, int32_t num_args,
 *                const TilecRuntimeEnv* env, char* err, int32_t err_len);
 *
 * It checks every argument (count, kind, dtype, ndim, shape, contiguity, device),
 * binds symbolic dimensions, runs the kernel and returns 0; on bad input it writes
 * a NUL-terminated message naming the argument and what was expected into err and
 * returns non-zero. The generated source embeds this file (copied into the C host
 * codegen at build time, less its DLPack include), so a kernel library is
 * self-contained; TILEC_ABI_VERSION, which the library also exports as
 * `int32_t tilec_abi_version(void)`, tells a loader which version it was built for.
 */
#ifndef TILEC_RUNTIME_ABI_H_
#define TILEC_RUNTIME_ABI_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILEC_ABI_VERSION 3

/* Statuses a device function returns to its host entry (and a GPU kernel reports
 * through its status word), defined here once: the printers print these values into the
 * helper text they embed, and the runtime decodes them. */
/* A block-local tile's heap allocation failed. */
#ifndef TILEC_STATUS_OUT_OF_MEMORY
#define TILEC_STATUS_OUT_OF_MEMORY 3
#endif
/* A kernel divided an integer by zero (its result there is 0). */
#ifndef TILEC_STATUS_DIVISION_BY_ZERO
#define TILEC_STATUS_DIVISION_BY_ZERO 4
#endif
/* A bounds-checked kernel indexed out of range (codegen/bounds_record.h). */
#ifndef TILEC_STATUS_OUT_OF_BOUNDS
#define TILEC_STATUS_OUT_OF_BOUNDS 5
#endif

enum TilecArgKind { kTilecArgTensor = 0, kTilecArgInt = 1, kTilecArgFloat = 2 };

typedef struct TilecArg {
  int32_t kind; /* TilecArgKind */
  union {
    DLTensor* tensor;
    int64_t i;
    double f;
  } v;
} TilecArg;

/* Runs fn over [0, num_tasks) split into chunks, possibly on several threads;
 * returns the first non-zero status a chunk returned. */
typedef int32_t (*TilecTaskFn)(int64_t begin, int64_t end, void* closure);
/* One argument of a device launch: a buffer in the device's memory (from
 * device_alloc) or a scalar. */
enum TilecDeviceArgKind {
  kTilecDeviceArgBuffer = 0,
  kTilecDeviceArgInt = 1,
  kTilecDeviceArgFloat = 2
};
typedef struct TilecDeviceArg {
  int32_t kind; /* TilecDeviceArgKind */
  int32_t bits; /* scalars: width of the device parameter (32 or 64) */
  union {
    void* buffer;
    int64_t i;
    double f;
  } v;
} TilecDeviceArg;
enum TilecCopyKind { kTilecCopyHostToDevice = 0, kTilecCopyDeviceToHost = 1 };

/* The device side of an execution backend (OpenCL, CUDA, ...), target-neutral: memory
 * management and one launch of a compiled device function over a grid of blocks of
 * threads. Every entry returns 0 on success, else writes a message into err. A host
 * entry that launches device functions fails with a clear message when `device` is
 * NULL (an execution backend without a device, such as native).
 * `stream` is TilecRuntimeEnv.stream of the call (NULL: the device's default stream):
 * copies and the launch are ordered on it. With NULL a launch returns when the kernel
 * has finished; on a stream it may return once queued, and a copy to the host returns
 * when the data is there. A backend without streams fails when one is given. */
typedef struct TilecDeviceApi {
  int32_t (*alloc)(void* device, int64_t nbytes, void** out, char* err, int32_t err_len);
  int32_t (*free)(void* device, void* buffer);
  int32_t (*copy)(void* device, void* buffer, void* host, int64_t nbytes, int32_t kind,
                  void* stream, char* err, int32_t err_len);
  /* grid: blocks per axis; block: threads per axis; shared_bytes: dynamic shared memory
   * beyond the kernel's static allocations. A device function may report a status the
   * way host functions return one: an OpenCL kernel by taking one parameter more than
   * num_args (last: a pointer to an int32 word the launch zeroes), a CUDA function
   * through its module's `int tilec_status_<function>`; a non-zero word (e.g.
   * TILEC_STATUS_DIVISION_BY_ZERO) is returned, with its meaning in err. */
  int32_t (*launch)(void* device, const char* function, const int64_t grid[3],
                    const int64_t block[3], int64_t shared_bytes, const TilecDeviceArg* args,
                    int32_t num_args, void* stream, char* err, int32_t err_len);
} TilecDeviceApi;

typedef struct TilecRuntimeEnv {
  int32_t (*parallel_for)(int64_t num_tasks, TilecTaskFn fn, void* closure);
  int32_t num_threads;
  const TilecDeviceApi* device_api; /* NULL without a device */
  void* device;                     /* the execution backend's loaded module */
  /* Where device_api->alloc's buffers live as DLPack names them (kDLCUDA, device 0):
   * a tensor of that device type and id is passed to the device function as it is
   * (no copy); host tensors (kDLCPU) are copied in and back. 0: the device's memory is
   * not addressable by DLPack tensors, so every tensor is a host tensor. */
  int32_t device_memory_type;
  int32_t device_memory_id;
  void* stream; /* the stream this call runs on (CUstream for CUDA); NULL: default */
} TilecRuntimeEnv;

typedef int32_t (*TilecHostEntry)(const TilecArg* args, int32_t num_args,
                                  const TilecRuntimeEnv* env, char* err, int32_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_RUNTIME_ABI_H_ */
