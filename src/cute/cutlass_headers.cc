#include "tilec/cute/cutlass_headers.h"

#include <fmt/format.h>

#include <cstdlib>

namespace tilec::cute {
namespace fs = std::filesystem;

namespace {

fs::path candidate() {
  if (const char* dir = std::getenv("TILEC_CUTLASS_INCLUDE"); dir && *dir) return dir;
  fs::path cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    cache = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    cache = fs::path(home) / ".cache";
  }
  return cache / "tilec" / fmt::format("cutlass-{}", kPinnedCutlassVersion) / "include";
}

}  // namespace

std::optional<fs::path> cutlass_include_dir() {
  fs::path dir = candidate();
  std::error_code ignored;
  if (fs::exists(dir / "cute" / "tensor.hpp", ignored)) return dir;
  return std::nullopt;
}

std::string cutlass_unavailable_reason() {
  if (cutlass_include_dir()) return "";
  return fmt::format(
      "the CUTLASS/CuTe headers are not in {} (no cute/tensor.hpp); run scripts/setup.sh, which "
      "unpacks nvidia-cutlass=={} from PyPI there, or set TILEC_CUTLASS_INCLUDE to a CUTLASS "
      "include directory",
      candidate().string(), kPinnedCutlassVersion);
}

}  // namespace tilec::cute
