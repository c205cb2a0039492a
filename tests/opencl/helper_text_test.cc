// The OpenCL C helper text (src/opencl/text/tilec_opencl_helpers.cl) compiles on its own
// as OpenCL C 1.2 (every section at once), so an error in it points at its own file and
// line. Uses clang's OpenCL front end (-x cl -fsyntax-only); skips, saying why, without it.
#include "build_paths.h"
#include "tilec/exec/process.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace tilec {
namespace {

TEST(OpenCLHelperText, CompilesAloneAsOpenCLC) {
  // scripts/setup.sh installs clang-14; a plain `clang` is taken first.
  std::string clang;
  for (const char* name : {"clang", "clang-14"})
    if (clang.empty() && exec::run_process({name, "--version"}).exit_code == 0) clang = name;
  if (clang.empty())
    GTEST_SKIP() << "neither clang nor clang-14 is on PATH, so the OpenCL C helper file is not "
                    "compiled alone (scripts/setup.sh installs clang-14)";
  const std::filesystem::path file =
      std::filesystem::path(TILEC_SOURCE_DIR) / "src/opencl/text/tilec_opencl_helpers.cl";
  exec::ProcessResult r =
      exec::run_process({clang, "-x", "cl", "-cl-std=CL1.2", "-fsyntax-only", "-Werror", "-Xclang",
                         "-finclude-default-header", file.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace tilec
