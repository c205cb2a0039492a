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

#define TILEC_ABI_VERSION 1

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
typedef struct TilecRuntimeEnv {
  int32_t (*parallel_for)(int64_t num_tasks, TilecTaskFn fn, void* closure);
  int32_t num_threads;
} TilecRuntimeEnv;

typedef int32_t (*TilecHostEntry)(const TilecArg* args, int32_t num_args,
                                  const TilecRuntimeEnv* env, char* err, int32_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_RUNTIME_ABI_H_ */
