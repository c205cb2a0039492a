#include "cuda_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <type_traits>

namespace tilec::cuda::detail {

std::string CudaDriver::error_name(CUresult status) const {
  const char* name = nullptr;
  if (get_error_name && get_error_name(status, &name) == kCudaSuccess && name) return name;
  return fmt::format("CUDA error {}", status);
}

namespace {

struct DriverLoad {
  CudaDriver driver;
  std::string reason;  // empty: loaded
};

DriverLoad load_driver() {
  DriverLoad out;
  const char* forced = std::getenv("TILEC_CUDA_DRIVER_LIBRARY");
  std::string path = forced && *forced ? forced : "libcuda.so.1";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    out.reason = fmt::format(
        "no CUDA driver: {} could not be loaded ({}), so this machine cannot run CUDA kernels (no "
        "NVIDIA GPU or driver here). The kernel compiled; run it on the CPU with "
        "`--execution-backend emulator` (tilec's device emulator), on a machine with a GPU, or "
        "use `tilec compile` to inspect its code",
        path, why ? why : "unknown dlopen error");
    return out;
  }
  CudaDriver& d = out.driver;
  d.path = path;
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*primary_retain)(CUcontext*, CUdevice) = nullptr;
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    return fn != nullptr;
  };
  bool complete =
      sym(init, "cuInit") && sym(device_get, "cuDeviceGet") &&
      sym(primary_retain, "cuDevicePrimaryCtxRetain") && sym(d.get_error_name, "cuGetErrorName") &&
      sym(d.ctx_set_current, "cuCtxSetCurrent") && sym(d.ctx_synchronize, "cuCtxSynchronize") &&
      sym(d.module_load_data, "cuModuleLoadData") && sym(d.module_unload, "cuModuleUnload") &&
      sym(d.module_get_function, "cuModuleGetFunction") &&
      sym(d.module_get_global, "cuModuleGetGlobal_v2") && sym(d.mem_alloc, "cuMemAlloc_v2") &&
      sym(d.mem_free, "cuMemFree_v2") && sym(d.memcpy_htod, "cuMemcpyHtoD_v2") &&
      sym(d.memcpy_dtoh, "cuMemcpyDtoH_v2") && sym(d.memcpy_htod_async, "cuMemcpyHtoDAsync_v2") &&
      sym(d.memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2") &&
      sym(d.stream_synchronize, "cuStreamSynchronize") &&
      sym(d.func_set_attribute, "cuFuncSetAttribute") && sym(d.launch_kernel, "cuLaunchKernel");
  if (!complete) {
    out.reason = fmt::format(
        "{} lacks driver API entry points tilec needs (cuLaunchKernel, "
        "cuModuleLoadData, ...); update the NVIDIA driver",
        path);
    return out;
  }
  if (CUresult s = init(0); s != kCudaSuccess) {
    out.reason = fmt::format(
        "cuInit failed: {} (no usable GPU, or a driver/kernel-module "
        "mismatch)",
        d.error_name(s));
    return out;
  }
  CUdevice device = 0;
  if (CUresult s = device_get(&device, 0); s != kCudaSuccess) {
    out.reason = fmt::format("cuDeviceGet(0) failed: {} (no CUDA device)", d.error_name(s));
    return out;
  }
  if (CUresult s = primary_retain(&d.context, device); s != kCudaSuccess) {
    out.reason =
        fmt::format("cannot retain the primary context of CUDA device 0: {}", d.error_name(s));
  }
  return out;
}

}  // namespace

const CudaDriver* cuda_driver(std::string* reason) {
  static const DriverLoad load = load_driver();  // once: the driver stays loaded
  if (!load.reason.empty()) {
    if (reason) *reason = load.reason;
    return nullptr;
  }
  return &load.driver;
}

}  // namespace tilec::cuda::detail
