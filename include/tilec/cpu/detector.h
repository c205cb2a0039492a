// The "cpu" target detector, registered by the cpu module at kHostDetectorPriority (the
// fallback after every accelerator): `llvm -mcpu=<host cpu>` once the LLVM backend is
// enabled, else `c`. It always answers.
#pragma once

#include "tilec/target/detector_registry.h"

namespace tilec::cpu {

inline constexpr const char* kCpuDetectorName = "cpu";

target::Detection detect_cpu();

}  // namespace tilec::cpu
