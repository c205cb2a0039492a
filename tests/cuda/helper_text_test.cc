// The CUDA C++ helper text (src/cuda/text/tilec_cuda_helpers.cuh) compiles on its own
// through nvcc for sm_80 (every section at once, with the cuda_fp16.h / cuda_bf16.h
// includes the printer puts before the float16 sections), so an error in it points at
// its own file and line. Skips, saying why, without nvcc.
#include "build_paths.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/exec/process.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tilec {
namespace {

namespace fs = std::filesystem;

TEST(CudaHelperText, CompilesAloneThroughNvcc) {
  const std::string nvcc = cuda::nvcc_program();
  if (nvcc.empty()) GTEST_SKIP() << cuda::nvcc_unavailable_reason();
  const fs::path file = fs::path(TILEC_SOURCE_DIR) / "src/cuda/text/tilec_cuda_helpers.cuh";
  const fs::path object = fs::temp_directory_path() / "tilec_cuda_helpers_test.o";
  // 177: a helper no kernel here calls is "declared but never referenced".
  exec::ProcessResult r =
      exec::run_process({nvcc, "-x", "cu", "-arch=sm_80", "-include", "cuda_fp16.h", "-include",
                         "cuda_bf16.h", "-diag-suppress", "177", "-Werror", "all-warnings", "-c",
                         file.string(), "-o", object.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  fs::remove(object);
}

}  // namespace
}  // namespace tilec
