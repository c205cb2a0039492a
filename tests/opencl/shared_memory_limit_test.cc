// Shared-memory limits on opencl: the target names no device, so the limit is known at
// launch. A kernel whose __local tiles exceed the device's CL_DEVICE_LOCAL_MEM_SIZE
// (2 MB on PoCL's CPU device) is refused before it is enqueued, naming the kernel, the
// bytes, the limit and what to change.
#include "../cli_support.h"
#include "../engine/test_support.h"

#include "tilec/opencl/opencl_execution_backend.h"

#include <fstream>

namespace tilec {
namespace {

TEST(OpenCLSharedMemoryLimit, ALaunchAboveTheDevicesLocalMemorySaysWhatToChange) {
  const auto& backend = opencl::opencl_execution_backend();
  if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
  std::filesystem::path file = testing::test_temp_dir("opencl-shared-limit") / "big.py";
  std::ofstream(file) << R"PY(
import tilelang.language as T

@T.prim_func
def big(A: T.Tensor((2048, 1024), "float32"), B: T.Tensor((2048, 1024), "float32")):
    with T.Kernel(1, threads=256) as bx:
        S = T.alloc_shared((2048, 1024), "float32")
        T.copy(A, S)
        T.copy(S, B)
)PY";
  exec::ProcessResult run =
      testing::tilec_cli({"run", file.string(), "--target", "opencl", "--check"});
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("kernel 'big_kernel' needs 8388608 bytes of shared (__local) memory"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("(CL_DEVICE_LOCAL_MEM_SIZE)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("use smaller shared tiles"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace tilec
