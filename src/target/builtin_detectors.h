// The detectors every tilec process starts with, in detection order: "cuda" (device 0
// through the CUDA driver, loaded with dlopen) then "cpu" (internal to src/target).
#pragma once

#include "tilec/target/detector_registry.h"

namespace tilec::target::detail {

Detection detect_cuda();
Detection detect_cpu();

}  // namespace tilec::target::detail
