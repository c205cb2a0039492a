// Where the CUTLASS/CuTe headers are: TILEC_CUTLASS_INCLUDE when set, else the directory
// scripts/setup.sh unpacks the pinned nvidia-cutlass wheel's headers into
// ($XDG_CACHE_HOME, else ~/.cache, /tilec/cutlass-4.2.0.0/include). The directory counts
// only when it holds cute/tensor.hpp.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace tilec::cute {

inline constexpr const char* kPinnedCutlassVersion = "4.2.0.0";

std::optional<std::filesystem::path> cutlass_include_dir();
// Empty when cutlass_include_dir() finds the headers, else where it looked and what to run.
std::string cutlass_unavailable_reason();

}  // namespace tilec::cute
