// The HIP runtime (libamdhip64, ROCm's) loaded with dlopen at first use, so tilec builds
// and runs without ROCm: the entry points the detector, hiprtc and the launches use,
// declared here by their C signatures. hiprtc lives in the same library in ROCm 5.
#pragma once

#include <cstddef>
#include <string>

namespace tilec::rocm::detail {

using hipError_t = int;
using hiprtcResult = int;
using hipModule_t = void*;
using hipFunction_t = void*;
using hipStream_t = void*;
using hipDeviceptr_t = void*;
using hiprtcProgram = void*;
inline constexpr hipError_t kHipSuccess = 0;

struct HipRuntime {
  std::string path;  // the library loaded
  hipError_t (*init)(unsigned) = nullptr;
  hipError_t (*get_device_count)(int*) = nullptr;
  hipError_t (*get_device_properties)(void*, int) = nullptr;
  const char* (*get_error_name)(hipError_t) = nullptr;
  hipError_t (*module_load_data)(hipModule_t*, const void*) = nullptr;
  hipError_t (*module_unload)(hipModule_t) = nullptr;
  hipError_t (*module_get_function)(hipFunction_t*, hipModule_t, const char*) = nullptr;
  hipError_t (*module_get_global)(hipDeviceptr_t*, size_t*, hipModule_t, const char*) = nullptr;
  hipError_t (*malloc)(void**, size_t) = nullptr;
  hipError_t (*free)(void*) = nullptr;
  hipError_t (*memcpy_htod)(hipDeviceptr_t, void*, size_t) = nullptr;
  hipError_t (*memcpy_dtoh)(void*, hipDeviceptr_t, size_t) = nullptr;
  hipError_t (*memcpy_htod_async)(hipDeviceptr_t, void*, size_t, hipStream_t) = nullptr;
  hipError_t (*memcpy_dtoh_async)(void*, hipDeviceptr_t, size_t, hipStream_t) = nullptr;
  hipError_t (*module_launch_kernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, unsigned, unsigned, hipStream_t, void**,
                                     void**) = nullptr;
  hipError_t (*device_synchronize)() = nullptr;
  hipError_t (*stream_synchronize)(hipStream_t) = nullptr;
  hiprtcResult (*rtc_version)(int*, int*) = nullptr;
  const char* (*rtc_error_string)(hiprtcResult) = nullptr;
  hiprtcResult (*rtc_create_program)(hiprtcProgram*, const char*, const char*, int,
                                     const char* const*, const char* const*) = nullptr;
  hiprtcResult (*rtc_destroy_program)(hiprtcProgram*) = nullptr;
  hiprtcResult (*rtc_compile_program)(hiprtcProgram, int, const char* const*) = nullptr;
  hiprtcResult (*rtc_get_log_size)(hiprtcProgram, size_t*) = nullptr;
  hiprtcResult (*rtc_get_log)(hiprtcProgram, char*) = nullptr;
  hiprtcResult (*rtc_get_code_size)(hiprtcProgram, size_t*) = nullptr;
  hiprtcResult (*rtc_get_code)(hiprtcProgram, char*) = nullptr;

  std::string error_name(hipError_t e) const;
};

// The runtime library, loaded once (TILEC_HIP_LIBRARY names another file); null with the
// reason in *reason when it cannot be loaded or lacks an entry point.
const HipRuntime* hip_runtime(std::string* reason);

// The runtime with a device: null with the reason ("no HIP device: ...") when the
// library is missing or reports no device. Probed once.
const HipRuntime* hip_device_runtime(std::string* reason);

}  // namespace tilec::rocm::detail
