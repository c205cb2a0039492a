// HIP C++ on the `emulator` execution backend (tilec/exec/emulator.h): the rocm backend
// registers the dialect -- the header that defines HIP's names for the host compiler
// (include/tilec/emu/hip.h) with the target's wavefront as the warp size, and
// hip/hip_fp16.h made of tilec's own float16 conversions (the C preamble's).
#pragma once

#include "tilec/exec/emulator.h"

namespace tilec::rocm {

exec::EmulatorDialect hip_emulator_dialect();
// -I of the shim headers and -DTILEC_EMU_HIP_WAVEFRONT=<the target's wavefront>.
std::vector<std::string> hip_emulated_compile_options(const backend::CodeArtifact& device);

}  // namespace tilec::rocm
