// The `hip` target detector: asks the HIP runtime (libamdhip64, loaded with dlopen) for
// device 0's architecture and answers `hip -mcpu=<gcnArchName>` (feature suffixes
// dropped); with no runtime or no device it reports nothing, saying why.
#pragma once

#include "tilec/target/detector_registry.h"

namespace tilec::rocm {

inline constexpr const char* kHipDetectorName = "rocm";

target::Detection detect_hip();

}  // namespace tilec::rocm
