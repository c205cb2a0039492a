#ifdef TILEC_HAVE_WGPU_HEADERS

#include "wgpu_runtime.h"

#include "tilec/exec/execution_backend.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace tilec::webgpu::wgpu {

std::string library_path() {
  const char* env = std::getenv("TILEC_WGPU_LIBRARY");
  if (env && *env) return env;
  return TILEC_WGPU_DEFAULT_LIBRARY;
}

namespace {

// Mesa's Vulkan drivers (lavapipe among them) probe Wayland's window-system integration
// when wgpu-native creates its instance, and libwayland prints "error: XDG_RUNTIME_DIR is
// invalid or not set in the environment." once per probe when the variable is unset (a
// CI job, a container, ssh without a login session) -- noise on every webgpu use that a
// compute-only tilec has no use for. Before the driver is loaded, an unset variable is
// pointed at a private directory of this user (created 0700, as the XDG base-directory
// spec requires; the process's environment only, never a set one).
void give_the_driver_a_runtime_dir() {
  const char* set = std::getenv("XDG_RUNTIME_DIR");
  if (set && *set) return;
  std::error_code error;
  std::filesystem::path dir =
      std::filesystem::temp_directory_path(error) / fmt::format("tilec-runtime-{}", getuid());
  if (error) return;
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return;
  struct stat st {};
  // Only a directory this user owns and no one else can enter (not another user's plant).
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
      (st.st_mode & 077) != 0)
    return;
  setenv("XDG_RUNTIME_DIR", dir.c_str(), 0);
}

}  // namespace

const Api* api(std::string* why) {
  static std::once_flag once;
  static Api loaded;
  static std::string error;
  std::call_once(once, [] {
    give_the_driver_a_runtime_dir();
    std::string path = library_path();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error = fmt::format(
          "cannot load wgpu-native from '{}' ({}); run scripts/setup.sh, which unpacks it from "
          "the pinned PyPI wgpu wheel, or point TILEC_WGPU_LIBRARY at a libwgpu_native.so",
          path, dlerror());
      return;
    }
#define TILEC_WGPU_LOAD(name)                                                   \
  loaded.name = reinterpret_cast<decltype(loaded.name)>(dlsym(handle, #name));  \
  if (!loaded.name) {                                                           \
    error = fmt::format(                                                        \
        "wgpu-native at '{}' has no {}; tilec needs the version of the pinned " \
        "PyPI wgpu wheel (scripts/setup.sh)",                                   \
        path, #name);                                                           \
    return;                                                                     \
  }
    TILEC_WGPU_FUNCTIONS(TILEC_WGPU_LOAD)
#undef TILEC_WGPU_LOAD
  });
  if (!error.empty()) {
    if (why) *why = error;
    return nullptr;
  }
  return &loaded;
}

namespace {

WGPUInstance instance(const Api& a) {
  static WGPUInstance created = [&] {
    // The primary backends only (Vulkan here): no GL/EGL probing of a display.
    WGPUInstanceExtras extras{};
    extras.chain.sType = static_cast<WGPUSType>(WGPUSType_InstanceExtras);
    extras.backends = WGPUInstanceBackend_Primary;
    WGPUInstanceDescriptor desc{};
    desc.nextInChain = &extras.chain;
    return a.wgpuCreateInstance(&desc);
  }();
  return created;
}

std::string adapter_label(const Api& a, WGPUAdapter adapter) {
  WGPUAdapterInfo info{};
  if (a.wgpuAdapterGetInfo(adapter, &info) != WGPUStatus_Success) return "unknown adapter";
  static const std::map<int, const char*> backends = {{WGPUBackendType_Vulkan, "Vulkan"},
                                                      {WGPUBackendType_Metal, "Metal"},
                                                      {WGPUBackendType_D3D12, "D3D12"},
                                                      {WGPUBackendType_OpenGL, "OpenGL"},
                                                      {WGPUBackendType_OpenGLES, "OpenGLES"}};
  static const std::map<int, const char*> types = {
      {WGPUAdapterType_DiscreteGPU, "discrete GPU"},
      {WGPUAdapterType_IntegratedGPU, "integrated GPU"},
      {WGPUAdapterType_CPU, "CPU"}};
  auto b = backends.find(info.backendType);
  auto t = types.find(info.adapterType);
  std::string label = fmt::format("{} ({}, {})", text(info.device),
                                  b == backends.end() ? "other backend" : b->second,
                                  t == types.end() ? "unknown type" : t->second);
  a.wgpuAdapterInfoFreeMembers(info);
  return label;
}

}  // namespace

std::vector<Adapter> adapters(std::string* why) {
  const Api* a = api(why);
  if (!a) return {};
  static std::once_flag once;
  static std::vector<Adapter> found;
  std::call_once(once, [&] {
    WGPUInstance inst = instance(*a);
    if (!inst) return;
    size_t n = a->wgpuInstanceEnumerateAdapters(inst, nullptr, nullptr);
    std::vector<WGPUAdapter> handles(n);
    if (n) a->wgpuInstanceEnumerateAdapters(inst, nullptr, handles.data());
    for (size_t i = 0; i < n; ++i)
      found.push_back({handles[i], int(i), adapter_label(*a, handles[i])});
  });
  if (found.empty() && why) {
    *why =
        "wgpu-native found no WebGPU adapter (no Vulkan, Metal or D3D12 device); install a "
        "driver (e.g. Debian's mesa-vulkan-drivers, whose lavapipe runs on the CPU) and check "
        "that VK_ICD_FILENAMES, if set, names it";
  }
  return found;
}

Adapter select_adapter(const std::string& selector) {
  std::string why;
  std::vector<Adapter> all = adapters(&why);
  if (all.empty()) throw exec::ExecError(why);
  if (selector.empty()) return all.front();
  std::vector<std::string> labels;
  for (const auto& a : all) labels.push_back(fmt::format("{}: {}", a.index, a.label));
  bool number = selector.find_first_not_of("0123456789") == std::string::npos;
  for (const auto& a : all) {
    if (number ? std::to_string(a.index) == selector : a.label.find(selector) != std::string::npos)
      return a;
  }
  throw exec::ExecError(fmt::format(
      "no WebGPU adapter matches -device={}; adapters here: {}. Use a name fragment or an index",
      selector, fmt::join(labels, "; ")));
}

Device& device(const std::string& selector) {
  Adapter adapter = select_adapter(selector);
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<Device>> devices;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = devices[adapter.index];
  if (slot) return *slot;
  const Api& a = *api(nullptr);
  auto d = std::make_unique<Device>();
  d->api = &a;
  d->adapter = adapter;
  // The adapter's own limits (32 KiB of workgroup storage on lavapipe, not WebGPU's
  // 16 KiB default), and shader-f16 where it has it.
  WGPULimits limits{};
  a.wgpuAdapterGetLimits(adapter.adapter, &limits);
  d->shader_f16 = a.wgpuAdapterHasFeature(adapter.adapter, WGPUFeatureName_ShaderF16);
  std::vector<WGPUFeatureName> features;
  if (d->shader_f16) features.push_back(WGPUFeatureName_ShaderF16);
  // wgpu-native names the subgroups feature with its own enum (WGPUNativeFeature_Subgroup).
  auto subgroup = static_cast<WGPUFeatureName>(WGPUNativeFeature_Subgroup);
  d->subgroups = a.wgpuAdapterHasFeature(adapter.adapter, WGPUFeatureName_Subgroups) ||
                 a.wgpuAdapterHasFeature(adapter.adapter, subgroup);
  if (a.wgpuAdapterHasFeature(adapter.adapter, WGPUFeatureName_Subgroups))
    features.push_back(WGPUFeatureName_Subgroups);
  else if (d->subgroups)
    features.push_back(subgroup);
  // Device timers for tilec bench/tune (lavapipe has them); without, they time on the host.
  bool timestamps = a.wgpuAdapterHasFeature(adapter.adapter, WGPUFeatureName_TimestampQuery);
  if (timestamps) features.push_back(WGPUFeatureName_TimestampQuery);
  WGPUDeviceDescriptor desc{};
  desc.requiredFeatureCount = features.size();
  desc.requiredFeatures = features.data();
  desc.requiredLimits = &limits;
  desc.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType,
                                                 WGPUStringView message, void* self, void*) {
    static_cast<Device*>(self)->uncaptured = text(message);
  };
  desc.uncapturedErrorCallbackInfo.userdata1 = d.get();
  struct Result {
    WGPUDevice device = nullptr;
    std::string message;
    bool done = false;
  } result;
  WGPURequestDeviceCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowSpontaneous;
  cb.callback = [](WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
                   void* out, void*) {
    auto* r = static_cast<Result*>(out);
    r->device = status == WGPURequestDeviceStatus_Success ? device : nullptr;
    r->message = text(message);
    r->done = true;
  };
  cb.userdata1 = &result;
  a.wgpuAdapterRequestDevice(adapter.adapter, &desc, cb);
  while (!result.done) a.wgpuInstanceProcessEvents(instance(a));
  if (!result.device) {
    throw exec::ExecError(
        fmt::format("cannot create a WebGPU device on {}: {}", adapter.label, result.message));
  }
  d->device = result.device;
  d->queue = a.wgpuDeviceGetQueue(d->device);
  if (timestamps) {
    WGPUQuerySetDescriptor qs{};
    qs.type = WGPUQueryType_Timestamp;
    qs.count = 2;
    d->timestamps = a.wgpuDeviceCreateQuerySet(d->device, &qs);
    WGPUBufferDescriptor resolved{};
    resolved.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
    resolved.size = 2 * sizeof(uint64_t);
    if (d->timestamps) d->resolved = a.wgpuDeviceCreateBuffer(d->device, &resolved);
    if (!d->resolved) d->timestamps = nullptr;
    d->timestamp_period = a.wgpuQueueGetTimestampPeriod(d->queue);
  }
  a.wgpuAdapterGetLimits(adapter.adapter, &d->limits);
  slot = std::move(d);
  return *slot;
}

std::string pop_error_scope(Device& d) {
  struct Result {
    std::string message;
    bool done = false;
  } result;
  WGPUPopErrorScopeCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowSpontaneous;
  cb.callback = [](WGPUPopErrorScopeStatus, WGPUErrorType type, WGPUStringView message, void* out,
                   void*) {
    auto* r = static_cast<Result*>(out);
    if (type != WGPUErrorType_NoError) r->message = text(message);
    if (type != WGPUErrorType_NoError && r->message.empty()) r->message = "unknown WebGPU error";
    r->done = true;
  };
  cb.userdata1 = &result;
  d.api->wgpuDevicePopErrorScope(d.device, cb);
  while (!result.done) d.api->wgpuInstanceProcessEvents(instance(*d.api));
  return result.message;
}

void wait_idle(Device& d) {
  d.api->wgpuDevicePoll(d.device, true, nullptr);
}

}  // namespace tilec::webgpu::wgpu

#endif  // TILEC_HAVE_WGPU_HEADERS
