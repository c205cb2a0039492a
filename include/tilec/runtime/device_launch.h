/* One device launch as a function of the runtime, for host codegens that call it instead
 * of emitting the sequence (the `llvm` host codegen; the `c` one emits the same steps as
 * C text): each buffer argument already in the device's memory (tilec_rt_device_resident)
 * is passed as it is; every other one (a host tensor) is copied into a device buffer
 * (env->device_api), the device function runs once over the grid on env->stream,
 * host buffers not marked read-only are copied back, and every device buffer is freed on
 * every path. host_tensors 0: the kernel takes device tensors only, and a host tensor
 * is an error. Returns 0, or non-zero after writing the NUL-terminated message into err;
 * `kernel` names the kernel in messages.
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
  } v;              /* scalars */
  const char* name; /* buffers: the parameter's name, for messages */
  int32_t index;    /* buffers: its position among the host entry's arguments */
} TilecDeviceLaunchArg;

int32_t tilec_rt_device_launch(const TilecRuntimeEnv* env, const char* kernel, const char* function,
                               const int64_t grid[3], const int64_t block[3], int32_t host_tensors,
                               const TilecDeviceLaunchArg* args, int32_t num_args, char* err,
                               int32_t err_len);

/* Where tensor argument #index (`name`) of a device kernel lives: 1 in env's device
 * memory (device type env->device_memory_type, id env->device_memory_id: passed as it
 * is), 0 on the host (kDLCPU: copied; only when host_tensors), -1 otherwise, with the
 * message (another device type, another device id, a host tensor where host_tensors
 * is 0) in err. The `c` host codegen embeds the same check with the same messages. */
int32_t tilec_rt_device_resident(const TilecRuntimeEnv* env, const DLTensor* t, const char* name,
                                 int32_t index, const char* kernel, int32_t host_tensors, char* err,
                                 int32_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_RUNTIME_DEVICE_LAUNCH_H_ */
