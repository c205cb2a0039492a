// The shared CUDA execution backends. `nvrtc` compiles the device source (CUDA C++) to a
// cubin for the target's -arch in process (NVRTC loaded with dlopen, cuda_toolkit.h);
// `nvcc` builds the same cubin with the nvcc program. Either embeds the cubin and the
// source in the host library the native backend builds (one kernel-cache artifact), and
// launches through TilecDeviceApi (abi.h) on the CUDA driver, loaded with dlopen when
// the first launch needs it: building needs no GPU, and running without a driver fails
// with a message that says so. Host tensors are copied to device memory and back per
// launch. A kernel whose device source defines `tilec_dynamic_shared_bytes_<kernel>`
// (an extern "C" __device__ int64) gets that much dynamic shared memory, with
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES raised for it when above 48 KB; one
// that defines `tilec_status_<kernel>` (an extern "C" __device__ int) has it zeroed
// before and read after each launch, and a non-zero value fails the launch (abi.h).
// Extra compiler options come from the device artifact's metadata "cuda_options"
// (space-separated), e.g. include paths of a header library; they are part of the
// cache identity through the device source, which names them in a comment.
#pragma once

#include "tilec/exec/execution_backend.h"

#include <string>

namespace tilec::cuda {

inline constexpr const char* kNvrtcBackendName = "nvrtc";
inline constexpr const char* kNvccBackendName = "nvcc";

const exec::ExecutionBackendPtr& nvrtc_execution_backend();
const exec::ExecutionBackendPtr& nvcc_execution_backend();

// The CUDA driver loaded; empty when it is, else why not ("no CUDA driver: ...").
std::string cuda_driver_unavailable_reason();

}  // namespace tilec::cuda
