#include "tilec/rocm/detector.h"

#include "hip_runtime.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

// hipDeviceProp_t's layout, for gcnArchName, comes from ROCm's header where the build
// has it; the runtime itself is loaded at run time either way.
#if __has_include(<hip/hip_runtime_api.h>)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#define TILEC_HAVE_HIP_PROPERTIES 1
#endif

namespace tilec::rocm {

namespace {

target::Detection probe_hip() {
  std::string reason;
  const detail::HipRuntime* rt = detail::hip_device_runtime(&reason);
  if (!rt) return {std::nullopt, reason};
#ifdef TILEC_HAVE_HIP_PROPERTIES
  // Room beyond the header's struct, should the runtime's be larger.
  std::vector<unsigned char> props(sizeof(hipDeviceProp_t) + 4096, 0);
  if (detail::hipError_t s = rt->get_device_properties(props.data(), 0); s != detail::kHipSuccess)
    return {std::nullopt, "hipGetDeviceProperties(0) failed: " + rt->error_name(s)};
  const char* name =
      reinterpret_cast<const char*>(props.data()) + offsetof(hipDeviceProp_t, gcnArchName);
  std::string arch(name, strnlen(name, sizeof(hipDeviceProp_t::gcnArchName)));
  arch = arch.substr(0, arch.find(':'));
  if (arch.rfind("gfx", 0) != 0)
    return {std::nullopt, fmt::format("HIP device 0 reports the architecture '{}'", arch)};
  return {target::Target::make("hip", {{"mcpu", arch}}), ""};
#else
  return {std::nullopt,
          "tilec was built without ROCm's hip/hip_runtime_api.h, so it cannot read device "
          "0's architecture; name it: --target \"hip -mcpu=gfx90a\""};
#endif
}

}  // namespace

target::Detection detect_hip() {
  static const target::Detection detection = probe_hip();
  return detection;
}

}  // namespace tilec::rocm
