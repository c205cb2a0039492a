// Limits of the opencl target that belong to the device, not to the kind. The kind's
// schema leaves `max_shared_memory_per_block` at 0 ("the device's"); this normalizer,
// registered by the opencl module, fills it in on every opencl target that
// determine_target resolves: the CL_DEVICE_LOCAL_MEM_SIZE of the device its `device`
// attribute selects (2 MB on PoCL's CPU device), or kOpenCLDefaultSharedBytes where no
// OpenCL device is found, a figure every OpenCL 1.2 device meets (16 KiB is the
// standard's minimum for a full profile). An explicit non-zero value is left as given.
// The SIMT lowering reads the limit when it decides what fits in shared memory (staged
// fragments); the execution backend still checks the real device at launch.
#pragma once

#include "tilec/target/target.h"

#include <cstdint>
#include <optional>

namespace tilec::opencl {

inline constexpr const char* kDeviceLimitsNormalizerName = "opencl_device_limits";
inline constexpr int64_t kOpenCLDefaultSharedBytes = 16384;

// The target with its device limits filled in; nullopt for other kinds and for opencl
// targets that give them explicitly.
std::optional<target::Target> fill_opencl_device_limits(const target::Target& target);

}  // namespace tilec::opencl
