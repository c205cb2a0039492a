// CUDA C++ on the `emulator` execution backend (tilec/exec/emulator.h): the cuda backend
// registers the dialect -- the header that defines CUDA's names for the host compiler
// (include/tilec/emu/cuda.h), cuda_fp16.h / cuda_bf16.h / cuda_fp8.h made of tilec's own
// conversions (the C preamble's, one definition), and how to find a source's kernels and
// their __launch_bounds__. Source the emulator cannot run (CuTe's tensor-core atoms) is
// refused at build time with what to use instead.
#pragma once

#include "tilec/exec/emulator.h"

namespace tilec::cuda {

exec::EmulatorDialect cuda_emulator_dialect();
// The kernels of a CUDA device artifact ("extern \"C\" __global__ void
// __launch_bounds__(N) NAME(" lines, CodeGenCUDA's signatures).
std::vector<exec::EmulatedKernel> cuda_emulated_kernels(const backend::CodeArtifact& device);
// The host compiler's options for a CUDA device artifact: the shim headers' directory, or
// for the CuTe variant the CUDA toolkit's headers and the include paths it names.
std::vector<std::string> cuda_emulated_compile_options(const backend::CodeArtifact& device);

}  // namespace tilec::cuda
