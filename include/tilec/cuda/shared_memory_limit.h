// Shared memory one CUDA thread block may use, by architecture: 48 KB statically
// declared on every arch, and up to the arch's opt-in maximum as dynamic shared memory
// once cudaFuncAttributeMaxDynamicSharedMemorySize is raised at launch (the execution
// backends do that for kernels above 48 KB). From the CUDA C++ Programming Guide's
// table of technical specifications per compute capability.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tilec::cuda {

inline constexpr int64_t kStaticSharedLimitBytes = 48 * 1024;

// The opt-in maximum of `arch` ("sm_80" -> 166912, i.e. 163 KB; "sm_90" -> 232448, 227 KB);
// nullopt for an arch this table does not know (the launch checks it then).
std::optional<int64_t> max_shared_bytes_per_block(std::string_view arch);

}  // namespace tilec::cuda
