// The `wgpu` execution backend of the webgpu target: WGSL run by wgpu-native (loaded with
// dlopen at first use: TILEC_WGPU_LIBRARY, else what scripts/setup.sh unpacked from the
// pinned PyPI `wgpu` wheel; tilec builds and runs without it, and the backend is then
// unavailable, saying why). One instance, adapter and device per process (per adapter the
// target's `device` attribute selects: an index or a name fragment; empty: the first);
// build() compiles the WGSL on that device, reporting naga's errors with the generated
// lines they point at, and embeds it in the host library (the kernel cache keeps it);
// pipelines are cached per process. Host entries launch through TilecDeviceApi (abi.h):
// storage buffers for tensors (the host code copies back only what the kernel may write),
// and one dispatch per launch, checked against the device's limits first.
#pragma once

#include "tilec/exec/execution_backend.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec::webgpu {

inline constexpr const char* kWgpuBackendName = "wgpu";

const exec::ExecutionBackendPtr& wgpu_execution_backend();

// "INDEX: device (backend, type)" of every adapter; empty without wgpu-native or adapters.
std::vector<std::string> list_wgpu_adapters();

// What the WGSL printer needs to know of the device `selector` picks; nullopt when there is
// no wgpu-native or no adapter (the launch reports it).
struct WgpuDeviceFacts {
  bool shader_f16 = false;
  bool subgroups = false;
  int64_t max_workgroup_storage = 0;
  int64_t max_invocations = 0;
  int64_t max_storage_binding = 0;
};
std::optional<WgpuDeviceFacts> wgpu_device_facts(const std::string& selector);

// The generated WGSL lines a naga/Tint message points at ("wgsl:12:5", ":12:5 error"), each
// as "line 12: <text of line 12>", in message order without repeats.
std::vector<std::string> wgsl_lines_cited(const std::string& message, const std::string& source);

}  // namespace tilec::webgpu
