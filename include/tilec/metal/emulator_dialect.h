// MSL on the `emulator` execution backend (tilec/exec/emulator.h), a test aid: the metal
// backend registers the dialect -- the shim header that defines the names CodeGenMetal's
// output uses for the host C++ compiler (include/tilec/emu/metal.h, which says what it
// cannot check), a `metal_stdlib` whose half and bfloat convert with tilec's own conversions
// (the C preamble's, one definition), and how to find a source's kernels and their
// [[max_total_threads_per_threadgroup(N)]].
#pragma once

#include "tilec/exec/emulator.h"

namespace tilec::metal {

exec::EmulatorDialect metal_emulator_dialect();
// The kernels of an MSL device artifact ("[[max_total_threads_per_threadgroup(N)]]" then
// "kernel void NAME(", CodeGenMetal's signatures).
std::vector<exec::EmulatedKernel> metal_emulated_kernels(const backend::CodeArtifact& device);

}  // namespace tilec::metal
