// The "cuda" target detector: device 0 through the CUDA driver API, with libcuda.so.1
// loaded by dlopen so tilec builds and runs without the CUDA toolkit. It answers
// `cuda -arch=sm_XY` (the device's compute capability), or says why not (no driver,
// no device, a failing driver call). Registered by the cuda module at
// kAcceleratorDetectorPriority, so "auto" prefers a GPU to the host CPU. The device is
// probed once per process; later calls return the same answer.
#pragma once

#include "tilec/target/detector_registry.h"

namespace tilec::cuda {

inline constexpr const char* kCudaDetectorName = "cuda";

target::Detection detect_cuda();

}  // namespace tilec::cuda
