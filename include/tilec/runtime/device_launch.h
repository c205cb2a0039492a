/* One device launch as a function of the runtime, for host codegens that call it instead
 * of emitting the sequence (the `llvm` host codegen; the `c` one emits the same steps as
 * C text): every buffer argument is copied into a device buffer (env->device_api), the
 * device function runs once over the grid, buffers not marked read-only are copied back,
 * and every device buffer is freed on every path. Returns 0, or non-zero after writing
 * the NUL-terminated message into err; `kernel` names the kernel in messages.
 */
#ifndef TILEC_RUNTIME_DEVICE_LAUNCH_H_
#define TILEC_RUNTIME_DEVICE_LAUNCH_H_

#include "tilec/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TilecDeviceLaunchArg {
  int32_t kind;      /* TilecDeviceArgKind */
  int32_t bits;      /* scalars: width of the device parameter */
  int32_t read_only; /* buffers: not copied back */
  int32_t elem_bytes;
  const DLTensor* tensor; /* buffers: the checked host tensor */
  union {
    int64_t i;
    double f;
  } v; /* scalars */
} TilecDeviceLaunchArg;

int32_t tilec_rt_device_launch(const TilecRuntimeEnv* env, const char* kernel, const char* function,
                               const int64_t grid[3], const int64_t block[3],
                               const TilecDeviceLaunchArg* args, int32_t num_args, char* err,
                               int32_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_RUNTIME_DEVICE_LAUNCH_H_ */
