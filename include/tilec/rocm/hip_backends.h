// The rocm backend's own execution backends, both building a HIP code object for the
// target's -mcpu and launching through the HIP runtime (libamdhip64, loaded with dlopen
// at the first launch, so kernels compile on a machine without an AMD GPU; running there
// is an error saying "no HIP device" and naming the emulator):
//   hiprtc: hiprtc in process;
//   hipcc:  Debian's hipcc, as a process.
// The code object (`device.co`, an ELF for one gfx arch, which llvm-objdump disassembles)
// sits in the kernel-cache entry beside the host library, which embeds it.
#pragma once

#include "tilec/exec/execution_backend.h"

namespace tilec::rocm {

inline constexpr const char* kHiprtcBackendName = "hiprtc";
inline constexpr const char* kHipccBackendName = "hipcc";
inline constexpr const char* kCodeObjectFileName = "device.co";

const exec::ExecutionBackendPtr& hiprtc_execution_backend();
const exec::ExecutionBackendPtr& hipcc_execution_backend();

}  // namespace tilec::rocm
