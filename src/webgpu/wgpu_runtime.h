// wgpu-native, loaded with dlopen at first use (TILEC_WGPU_LIBRARY, else the library that
// scripts/setup.sh unpacked from the pinned PyPI `wgpu` wheel, whose webgpu.h/wgpu.h this
// file is compiled against), and the process's WebGPU devices: one instance, and per
// selected adapter one device (requested with the adapter's own limits and its shader-f16,
// subgroups and timestamp-query features), created once and shared by every module. Only built with
// the headers (TILEC_HAVE_WGPU_HEADERS); private to src/webgpu/.
#pragma once

#include <webgpu.h>
#include <wgpu.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tilec::webgpu::wgpu {

#define TILEC_WGPU_FUNCTIONS(X)               \
  X(wgpuCreateInstance)                       \
  X(wgpuInstanceEnumerateAdapters)            \
  X(wgpuInstanceProcessEvents)                \
  X(wgpuAdapterGetInfo)                       \
  X(wgpuAdapterInfoFreeMembers)               \
  X(wgpuAdapterGetLimits)                     \
  X(wgpuAdapterHasFeature)                    \
  X(wgpuAdapterRequestDevice)                 \
  X(wgpuDeviceGetQueue)                       \
  X(wgpuDeviceCreateBuffer)                   \
  X(wgpuDeviceCreateShaderModule)             \
  X(wgpuDeviceCreateBindGroupLayout)          \
  X(wgpuDeviceCreatePipelineLayout)           \
  X(wgpuDeviceCreateComputePipeline)          \
  X(wgpuDeviceCreateBindGroup)                \
  X(wgpuDeviceCreateCommandEncoder)           \
  X(wgpuDevicePushErrorScope)                 \
  X(wgpuDevicePopErrorScope)                  \
  X(wgpuDevicePoll)                           \
  X(wgpuBufferDestroy)                        \
  X(wgpuBufferRelease)                        \
  X(wgpuBufferMapAsync)                       \
  X(wgpuBufferGetConstMappedRange)            \
  X(wgpuBufferUnmap)                          \
  X(wgpuQueueWriteBuffer)                     \
  X(wgpuQueueSubmitForIndex)                  \
  X(wgpuShaderModuleRelease)                  \
  X(wgpuBindGroupLayoutRelease)               \
  X(wgpuPipelineLayoutRelease)                \
  X(wgpuComputePipelineRelease)               \
  X(wgpuBindGroupRelease)                     \
  X(wgpuCommandEncoderBeginComputePass)       \
  X(wgpuCommandEncoderCopyBufferToBuffer)     \
  X(wgpuCommandEncoderFinish)                 \
  X(wgpuCommandEncoderRelease)                \
  X(wgpuCommandBufferRelease)                 \
  X(wgpuComputePassEncoderSetPipeline)        \
  X(wgpuComputePassEncoderSetBindGroup)       \
  X(wgpuComputePassEncoderDispatchWorkgroups) \
  X(wgpuComputePassEncoderEnd)                \
  X(wgpuComputePassEncoderRelease)            \
  X(wgpuDeviceCreateQuerySet)                 \
  X(wgpuCommandEncoderResolveQuerySet)        \
  X(wgpuQueueGetTimestampPeriod)

// The entry points used, resolved from the loaded library.
struct Api {
#define TILEC_WGPU_MEMBER(name) decltype(&::name) name = nullptr;
  TILEC_WGPU_FUNCTIONS(TILEC_WGPU_MEMBER)
#undef TILEC_WGPU_MEMBER
};

// The loaded API, or nullptr with *why set (library not found, symbol missing).
const Api* api(std::string* why);
// The path dlopen is given: TILEC_WGPU_LIBRARY, else the set-up's unpacked library.
std::string library_path();

struct Adapter {
  WGPUAdapter adapter = nullptr;
  int index = 0;
  std::string label;  // "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, CPU)"
};

// Every adapter of the process's instance (empty, with *why, when there is none).
std::vector<Adapter> adapters(std::string* why);
// The adapter `selector` picks: empty -> the first; a number -> that index; else the
// first whose label contains it. Throws exec::ExecError listing the adapters.
Adapter select_adapter(const std::string& selector);

// One device per adapter, created on first use, for the life of the process.
struct Device {
  const Api* api = nullptr;
  Adapter adapter;
  WGPUDevice device = nullptr;
  WGPUQueue queue = nullptr;
  WGPULimits limits{};
  bool shader_f16 = false;
  bool subgroups = false;
  // timestamp-query, where the adapter has it: each launch's compute pass writes a begin
  // and an end timestamp into `timestamps` (2 queries), resolved into `resolved` (16
  // bytes); the device time is (end - begin) * timestamp_period nanoseconds.
  WGPUQuerySet timestamps = nullptr;
  WGPUBuffer resolved = nullptr;
  float timestamp_period = 1.0f;
  std::mutex mutex;  // serializes queue work and the pipeline cache
  // Pipelines by (WGSL source, entry point), for the life of the process.
  struct Pipeline {
    WGPUComputePipeline pipeline = nullptr;
    WGPUBindGroupLayout layout = nullptr;
  };
  std::map<std::pair<std::string, std::string>, Pipeline> pipelines;
  std::string uncaptured;  // the last error outside an error scope
};
Device& device(const std::string& selector);

// Runs `body` inside a validation error scope; the scope's error message, or "".
template <class F>
std::string with_error_scope(Device& d, F&& body);
std::string pop_error_scope(Device& d);

// Blocks until the device's queue has finished its submitted work.
void wait_idle(Device& d);

inline WGPUStringView view(const std::string& s) {
  return WGPUStringView{s.data(), s.size()};
}
inline std::string text(WGPUStringView v) {
  if (!v.data) return "";
  return v.length == WGPU_STRLEN ? std::string(v.data) : std::string(v.data, v.length);
}

template <class F>
std::string with_error_scope(Device& d, F&& body) {
  d.api->wgpuDevicePushErrorScope(d.device, WGPUErrorFilter_Validation);
  body();
  return pop_error_scope(d);
}

}  // namespace tilec::webgpu::wgpu
