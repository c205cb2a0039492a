#include "tilec/cuda/detector.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace tilec::cuda {
namespace {

// The few CUDA driver API entry points detection needs, declared here so tilec builds and
// runs without the CUDA toolkit: the driver is optional at run time.
using CUresult = int;
using CUdevice = int;
constexpr CUresult kCudaSuccess = 0;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
using CuInit = CUresult (*)(unsigned int);
using CuDeviceGetCount = CUresult (*)(int*);
using CuDeviceGet = CUresult (*)(CUdevice*, int);
using CuDeviceGetAttribute = CUresult (*)(int*, int, CUdevice);

constexpr const char* kDriverLibrary = "libcuda.so.1";

template <typename Fn>
Fn lookup(void* library, const char* name) {
  return reinterpret_cast<Fn>(dlsym(library, name));
}

target::Detection probe_cuda() {
  using target::Target;
  // The handle is kept for the life of the process: unloading the CUDA driver while
  // anything else may use it is unsafe, and dlopen of a loaded library is cheap.
  void* library = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    return {std::nullopt, fmt::format("no CUDA driver: {} could not be loaded ({})", kDriverLibrary,
                                      why ? why : "unknown dlopen error")};
  }
  auto init = lookup<CuInit>(library, "cuInit");
  auto get_count = lookup<CuDeviceGetCount>(library, "cuDeviceGetCount");
  auto get_device = lookup<CuDeviceGet>(library, "cuDeviceGet");
  auto get_attribute = lookup<CuDeviceGetAttribute>(library, "cuDeviceGetAttribute");
  if (!init || !get_count || !get_device || !get_attribute) {
    return {std::nullopt, fmt::format("{} lacks the driver API entry points cuInit, "
                                      "cuDeviceGetCount, cuDeviceGet, cuDeviceGetAttribute",
                                      kDriverLibrary)};
  }
  if (CUresult status = init(0); status != kCudaSuccess) {
    return {std::nullopt, fmt::format("cuInit failed with CUDA error {} (no usable GPU or driver "
                                      "mismatch)",
                                      status)};
  }
  int count = 0;
  if (CUresult status = get_count(&count); status != kCudaSuccess || count == 0) {
    return {std::nullopt, status != kCudaSuccess
                              ? fmt::format("cuDeviceGetCount failed with CUDA error {}", status)
                              : std::string("the CUDA driver reports no devices")};
  }
  CUdevice device = 0;
  int major = 0;
  int minor = 0;
  if (CUresult status = get_device(&device, 0); status != kCudaSuccess) {
    return {std::nullopt, fmt::format("cuDeviceGet(0) failed with CUDA error {}", status)};
  }
  if (get_attribute(&major, kAttrComputeCapabilityMajor, device) != kCudaSuccess ||
      get_attribute(&minor, kAttrComputeCapabilityMinor, device) != kCudaSuccess) {
    return {std::nullopt, "could not read the compute capability of CUDA device 0"};
  }
  return {Target::make("cuda", {{"arch", fmt::format("sm_{}{}", major, minor)}}), ""};
}

}  // namespace

target::Detection detect_cuda() {
  // Probed once per process: the driver and device 0 do not change while it runs, and
  // every target="auto" asks this detector first (a failing dlopen alone costs tens of
  // microseconds per call).
  static const target::Detection detection = probe_cuda();
  return detection;
}

}  // namespace tilec::cuda
