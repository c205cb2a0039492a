// The OpenCL C helper text (src/opencl/text/tilec_opencl_helpers.cl) compiles on its own
// as OpenCL C 1.2 (every section at once), so an error in it points at its own file and
// line. Uses clang's OpenCL front end (-x cl -fsyntax-only); skips, saying why, without it.
#include "build_paths.h"
#include "tilec/exec/process.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tilec {
namespace {

TEST(OpenCLHelperText, CompilesAloneAsOpenCLC) {
  if (exec::run_process({"clang", "--version"}).exit_code != 0)
    GTEST_SKIP() << "clang is not on PATH, so the OpenCL C helper file is not compiled alone "
                    "(install clang, see scripts/setup.sh)";
  const std::filesystem::path file =
      std::filesystem::path(TILEC_SOURCE_DIR) / "src/opencl/text/tilec_opencl_helpers.cl";
  exec::ProcessResult r =
      exec::run_process({"clang", "-x", "cl", "-cl-std=CL1.2", "-fsyntax-only", "-Werror",
                         "-Xclang", "-finclude-default-header", file.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace tilec
