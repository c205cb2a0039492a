#include "hip_runtime.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <vector>

namespace tilec::rocm::detail {

std::string HipRuntime::error_name(hipError_t e) const {
  const char* name = get_error_name ? get_error_name(e) : nullptr;
  return name ? fmt::format("{} ({})", name, e) : fmt::format("HIP error {}", e);
}

namespace {

struct Loaded {
  std::optional<HipRuntime> runtime;
  std::string reason;
};

Loaded load() {
  Loaded out;
  std::vector<std::string> candidates;
  if (const char* forced = std::getenv("TILEC_HIP_LIBRARY"); forced && *forced) {
    candidates = {forced};
  } else {
    candidates = {"libamdhip64.so.5", "libamdhip64.so.6", "libamdhip64.so",
                  "/opt/rocm/lib/libamdhip64.so"};
  }
  std::string failures;
  void* handle = nullptr;
  HipRuntime rt;
  for (const auto& path : candidates) {
    // Kept open for the process's life: unloading a runtime others may use is unsafe.
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      rt.path = path;
      break;
    }
    const char* why = dlerror();
    failures +=
        fmt::format("{}{} ({})", failures.empty() ? "" : "; ", path, why ? why : "not loadable");
  }
  if (!handle) {
    out.reason = "the HIP runtime (ROCm's libamdhip64) could not be loaded: " + failures +
                 "; install it (Debian: apt-get install libamdhip64-5, which hipcc pulls in)";
    return out;
  }
  std::string missing;
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    if (!fn) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", name);
  };
  sym(rt.init, "hipInit");
  sym(rt.get_device_count, "hipGetDeviceCount");
  sym(rt.get_device_properties, "hipGetDeviceProperties");
  sym(rt.get_error_name, "hipGetErrorName");
  sym(rt.module_load_data, "hipModuleLoadData");
  sym(rt.module_unload, "hipModuleUnload");
  sym(rt.module_get_function, "hipModuleGetFunction");
  sym(rt.module_get_global, "hipModuleGetGlobal");
  sym(rt.malloc, "hipMalloc");
  sym(rt.free, "hipFree");
  sym(rt.memcpy_htod, "hipMemcpyHtoD");
  sym(rt.memcpy_dtoh, "hipMemcpyDtoH");
  sym(rt.memcpy_htod_async, "hipMemcpyHtoDAsync");
  sym(rt.memcpy_dtoh_async, "hipMemcpyDtoHAsync");
  sym(rt.module_launch_kernel, "hipModuleLaunchKernel");
  sym(rt.device_synchronize, "hipDeviceSynchronize");
  sym(rt.stream_synchronize, "hipStreamSynchronize");
  sym(rt.rtc_version, "hiprtcVersion");
  sym(rt.rtc_error_string, "hiprtcGetErrorString");
  sym(rt.rtc_create_program, "hiprtcCreateProgram");
  sym(rt.rtc_destroy_program, "hiprtcDestroyProgram");
  sym(rt.rtc_compile_program, "hiprtcCompileProgram");
  sym(rt.rtc_get_log_size, "hiprtcGetProgramLogSize");
  sym(rt.rtc_get_log, "hiprtcGetProgramLog");
  sym(rt.rtc_get_code_size, "hiprtcGetCodeSize");
  sym(rt.rtc_get_code, "hiprtcGetCode");
  if (!missing.empty()) {
    out.reason = fmt::format("{} lacks the HIP entry points {}", rt.path, missing);
    return out;
  }
  out.runtime = rt;
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

const HipRuntime* hip_runtime(std::string* reason) {
  const Loaded& l = loaded();
  if (!l.runtime && reason) *reason = l.reason;
  return l.runtime ? &*l.runtime : nullptr;
}

const HipRuntime* hip_device_runtime(std::string* reason) {
  static const std::string why = [] {
    std::string r;
    const HipRuntime* rt = hip_runtime(&r);
    if (!rt) return "no HIP device: " + r;
    int count = 0;
    hipError_t s = rt->init(0);
    if (s == kHipSuccess) s = rt->get_device_count(&count);
    if (s != kHipSuccess || count == 0) {
      return fmt::format("no HIP device: {} reports {}", rt->path,
                         s != kHipSuccess ? rt->error_name(s) : std::string("no devices"));
    }
    return std::string();
  }();
  if (!why.empty()) {
    if (reason) *reason = why;
    return nullptr;
  }
  return hip_runtime(reason);
}

}  // namespace tilec::rocm::detail
