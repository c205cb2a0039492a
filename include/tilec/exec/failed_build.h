// What happens to the build directory of a build that failed: it is removed (the error
// message already carries the compiler's output), unless TILEC_KEEP_FAILED_BUILDS is set
// to anything but "", 0, false, no or off; then it stays for reading and the error says
// where. engine::compile() removes it; every execution backend phrases its build error with
// failed_build_sources() so the message never points at files that are gone.
#pragma once

#include <string>
#include <vector>

namespace tilec::exec {

inline constexpr const char* kKeepFailedBuildsEnv = "TILEC_KEEP_FAILED_BUILDS";

// Whether TILEC_KEEP_FAILED_BUILDS asks to keep failed build directories.
bool keep_failed_builds();

// The sentence of a build error about its sources: "the sources are kept at A, B" when
// kept, else that they were removed and how to keep them.
std::string failed_build_sources(const std::vector<std::string>& paths);

}  // namespace tilec::exec
