// Running the built `tilec` executable as a user or script does, for the CLI tests
// of tests/engine and tests/tools (each defines TILEC_EXECUTABLE and
// TILEC_SOURCE_DIR for its test binary).
#pragma once

#include "build_paths.h"
#include "tilec/exec/process.h"

#include <filesystem>
#include <string>
#include <vector>

namespace tilec::testing {

// Path of a file under examples/.
inline std::string example(const char* name) {
  return (std::filesystem::path(TILEC_SOURCE_DIR) / "examples" / name).string();
}

// What `auto` resolves to on this CPU: `llvm -mcpu=<host>` on llvm_jit in a build with
// LLVM (the seed's rule), `c` on native without.
#ifdef TILEC_HAVE_LLVM
inline constexpr const char* kAutoCpuKind = "llvm";
inline constexpr const char* kAutoCpuExecutionBackend = "llvm_jit";
#else
inline constexpr const char* kAutoCpuKind = "c";
inline constexpr const char* kAutoCpuExecutionBackend = "native";
#endif

// Runs `tilec args...` and returns its exit code and combined output.
inline exec::ProcessResult tilec_cli(std::vector<std::string> args) {
  args.insert(args.begin(), TILEC_EXECUTABLE);
  return exec::run_process(args);
}

}  // namespace tilec::testing
