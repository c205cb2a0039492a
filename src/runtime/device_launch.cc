#include "tilec/runtime/device_launch.h"

#include "tilec/runtime/host_arg_checks.h"

#include <cstdio>
#include <vector>

// The same check the `c` host codegen embeds in every library it generates.
#include "tilec/runtime/device_resident.inc"

extern "C" int32_t tilec_rt_device_resident(const TilecRuntimeEnv* env, const DLTensor* t,
                                            const char* name, int32_t index, const char* kernel,
                                            int32_t host_tensors, char* err, int32_t err_len) {
  return tilec_device_resident_check(env, t, name, index, kernel, host_tensors, err, err_len);
}

extern "C" int32_t tilec_rt_device_launch(const TilecRuntimeEnv* env, const char* kernel,
                                          const char* function, const int64_t grid[3],
                                          const int64_t block[3], int32_t host_tensors,
                                          const TilecDeviceLaunchArg* args, int32_t num_args,
                                          char* err, int32_t err_len) {
  if (env == nullptr || env->device_api == nullptr || env->device == nullptr) {
    return tilec_rt_fail(err, err_len,
                         "kernel '%s' runs on a device, but its execution backend provides none; "
                         "compile it with an execution backend that has a device (e.g. opencl)",
                         kernel);
  }
  for (int d = 0; d < 3; ++d) {
    if (grid[d] < 0) {
      return tilec_rt_fail(err, err_len,
                           "kernel '%s': the grid has a negative extent for these argument shapes",
                           kernel);
    }
    // docs/semantics.md "Integer widths": device code's block index is int32.
    if (grid[d] > 2147483647) {
      return tilec_rt_fail(err, err_len,
                           "kernel '%s': the grid has %lld blocks along %c for these arguments, "
                           "more than 2147483647 (2^31 - 1)",
                           kernel, (long long)grid[d], "xyz"[d]);
    }
  }
  const size_t n = num_args > 0 ? size_t(num_args) : 0;
  // Placement first, so a misplaced tensor is reported before anything is allocated.
  std::vector<int32_t> resident(n, 0);
  for (int32_t i = 0; i < num_args; ++i) {
    const TilecDeviceLaunchArg& a = args[i];
    if (a.kind != kTilecDeviceArgBuffer) continue;
    resident[size_t(i)] = tilec_device_resident_check(env, a.tensor, a.name, a.index, kernel,
                                                      host_tensors, err, err_len);
    if (resident[size_t(i)] < 0) return 1;
  }
  const TilecDeviceApi& api = *env->device_api;
  std::vector<TilecDeviceArg> device_args(n);
  std::vector<void*> buffers(n, nullptr);  // the copies of host tensors
  std::vector<int64_t> bytes(n, 0);
  int32_t status = 0;
  for (int32_t i = 0; i < num_args && status == 0; ++i) {
    const TilecDeviceLaunchArg& a = args[i];
    TilecDeviceArg& d = device_args[size_t(i)];
    d.kind = a.kind;
    d.bits = a.bits;
    if (a.kind != kTilecDeviceArgBuffer) {
      if (a.kind == kTilecDeviceArgFloat) {
        d.v.f = a.v.f;
      } else {
        d.v.i = a.v.i;
      }
      continue;
    }
    void* data = static_cast<char*>(a.tensor->data) + a.tensor->byte_offset;
    if (resident[size_t(i)] == 1) {
      d.v.buffer = data;
      continue;
    }
    bytes[size_t(i)] = a.elem_bytes;
    for (int32_t k = 0; k < a.tensor->ndim; ++k) bytes[size_t(i)] *= a.tensor->shape[k];
    status = api.alloc(env->device, bytes[size_t(i)], &buffers[size_t(i)], err, err_len);
    if (status != 0) break;
    status = api.copy(env->device, buffers[size_t(i)], data, bytes[size_t(i)],
                      kTilecCopyHostToDevice, env->stream, err, err_len);
    d.v.buffer = buffers[size_t(i)];
  }
  // Not the product: three axes of up to 2^31 - 1 overflow int64.
  if (status == 0 && grid[0] > 0 && grid[1] > 0 && grid[2] > 0) {
    status = api.launch(env->device, function, grid, block, 0, device_args.data(), num_args,
                        env->stream, err, err_len);
  }
  for (int32_t i = 0; i < num_args && status == 0; ++i) {
    const TilecDeviceLaunchArg& a = args[i];
    if (a.kind != kTilecDeviceArgBuffer || a.read_only || resident[size_t(i)] == 1) continue;
    void* host = static_cast<char*>(a.tensor->data) + a.tensor->byte_offset;
    status = api.copy(env->device, buffers[size_t(i)], host, bytes[size_t(i)],
                      kTilecCopyDeviceToHost, env->stream, err, err_len);
  }
  for (void* b : buffers)
    if (b != nullptr) api.free(env->device, b);
  return status;
}
