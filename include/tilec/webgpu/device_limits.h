// Limits of the webgpu target that belong to the device, not to the kind. The webgpu module
// defines the kind with `max_shared_memory_per_block` and `max_threads_per_block` at 0 and
// `subgroup_reduce` at -1 ("the device's"); this normalizer, registered by the module,
// fills them in on every webgpu target that determine_target resolves, from the adapter its
// `device` attribute selects (wgpu_backend.h): maxComputeWorkgroupStorageSize,
// maxComputeInvocationsPerWorkgroup, and 1 where the adapter has `subgroups`. Where no
// WebGPU adapter is found it uses what every WebGPU device guarantees (16384 bytes, 256
// threads, no subgroups). Explicit values are left as given; the execution backend still
// checks the real device at launch.
#pragma once

#include "tilec/target/target.h"

#include <cstdint>
#include <optional>

namespace tilec::webgpu {

inline constexpr const char* kDeviceLimitsNormalizerName = "webgpu_device_limits";
inline constexpr int64_t kWebGpuDefaultSharedBytes = 16384;
inline constexpr int64_t kWebGpuDefaultThreads = 256;

// The target with its device limits filled in; nullopt for other kinds and for webgpu
// targets that give them all explicitly.
std::optional<target::Target> fill_webgpu_device_limits(const target::Target& target);

}  // namespace tilec::webgpu
