// The module variables a CUDA-family device source may define for its launches, by
// name: the device codegen writes them, the execution backends that launch the code
// (nvrtc/nvcc on the driver, the device emulator) read them. One definition each.
#pragma once

namespace tilec::exec {

// `extern "C" int64_t tilec_dynamic_shared_bytes_<kernel>`: the dynamic shared memory
// the launch gives the kernel (its tiles above 48 KB).
inline constexpr const char* kDynamicSharedBytesPrefix = "tilec_dynamic_shared_bytes_";
// `extern "C" int tilec_status_<kernel>`: zeroed before and read after each launch; a
// non-zero value (runtime/abi.h, e.g. TILEC_STATUS_DIVISION_BY_ZERO) fails it.
inline constexpr const char* kDeviceStatusPrefix = "tilec_status_";

}  // namespace tilec::exec
