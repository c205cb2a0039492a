// The shared `opencl` execution backend: OpenCL through the ICD loader (any platform:
// PoCL on a CPU here, a GPU driver elsewhere). build() compiles the device source
// (OpenCL C) for the selected device, reporting a failed build with the compiler's log
// and the generated source lines it points at; it embeds the program binary and the
// source in the host library (one cache artifact), so load() recreates the program
// from the binary without recompiling (from the source when the driver rejects the
// binary). Host entries launch through TilecDeviceApi (abi.h): device buffers, copies
// and one NDRange per launch. The device is the target's `device` attribute: a name
// fragment ("pthread"), or "P:D" for platform P's device D; empty: the first device.
#pragma once

#include "tilec/exec/execution_backend.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec::opencl {

inline constexpr const char* kOpenCLBackendName = "opencl";

const exec::ExecutionBackendPtr& opencl_execution_backend();

// "platform name / device name" of every OpenCL device found, in platform/device order
// (empty when there is no platform).
std::vector<std::string> list_opencl_devices();

// CL_DEVICE_LOCAL_MEM_SIZE (the __local bytes one work-group may use) of the device
// `selector` chooses (the target's `device` attribute, as above); nullopt when there is
// no OpenCL platform or no device matches.
std::optional<int64_t> opencl_local_memory_bytes(const std::string& selector);

// The generated source lines an OpenCL build log points at ("<source>:12:5: error:
// ..."), each as "line 12: <text of line 12>", in log order without repeats.
std::vector<std::string> source_lines_cited_by_build_log(const std::string& log,
                                                         const std::string& source);

}  // namespace tilec::opencl
