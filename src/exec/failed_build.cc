#include "tilec/exec/failed_build.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace tilec::exec {

bool keep_failed_builds() {
  const char* value = std::getenv(kKeepFailedBuildsEnv);
  if (value == nullptr) return false;
  std::string text(value);
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return !(text.empty() || text == "0" || text == "false" || text == "no" || text == "off");
}

std::string failed_build_sources(const std::vector<std::string>& paths) {
  if (keep_failed_builds())
    return fmt::format("the sources are kept at {} ({} is set)", fmt::join(paths, ", "),
                       kKeepFailedBuildsEnv);
  return fmt::format("the build directory was removed; set {}=1 to keep the sources for reading",
                     kKeepFailedBuildsEnv);
}

}  // namespace tilec::exec
