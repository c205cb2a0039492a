// The opencl target's shared-memory limit comes from the device (opencl/device_limits.h):
// determine_target fills in the selected device's CL_DEVICE_LOCAL_MEM_SIZE, an explicit
// value wins, and without a device (a -device naming none here: the same path as no
// OpenCL platform at all) the limit is the conservative 16 KiB the kind promises. A
// fragment too large for the registers is staged in the device's shared memory where
// 16 KiB could not hold it, and the kernel matches the interpreter.
#include "../engine/test_support.h"

#include "tilec/engine/initialize.h"
#include "tilec/frontend/parser.h"
#include "tilec/opencl/device_limits.h"
#include "tilec/opencl/opencl_execution_backend.h"
#include "tilec/target/detect.h"

namespace tilec {
namespace {

constexpr const char* kShared = "max_shared_memory_per_block";

TEST(OpenCLDeviceLimits, TheDevicesLocalMemoryUnlessGivenExplicitly) {
  tilec::initialize();
  std::optional<int64_t> device = opencl::opencl_local_memory_bytes("");
  if (!device) GTEST_SKIP() << opencl::opencl_execution_backend()->unavailable_reason();
  target::Target t = target::determine_target("opencl");
  EXPECT_EQ(t.get_int(kShared), *device);
  EXPECT_GT(t.get_int(kShared), opencl::kOpenCLDefaultSharedBytes);  // PoCL: 2 MB
  // The host target and other attributes survive.
  target::Target with_host = target::determine_target("opencl -vector_bytes=8 -host=c");
  EXPECT_EQ(with_host.get_int(kShared), *device);
  EXPECT_EQ(with_host.get_int("vector_bytes"), 8);
  ASSERT_TRUE(with_host.host());
  EXPECT_EQ(with_host.host()->kind(), "c");
  EXPECT_EQ(target::determine_target("opencl -max_shared_memory_per_block=4096").get_int(kShared),
            4096);
  // Other kinds are left alone.
  EXPECT_EQ(target::determine_target("cuda -arch=sm_80").get_int(kShared), 49152);
}

TEST(OpenCLDeviceLimits, NoMatchingDeviceKeepsTheConservativeDefault) {
  tilec::initialize();
  target::Target t = target::determine_target("opencl -device=no-such-opencl-device");
  EXPECT_EQ(t.get_int(kShared), opencl::kOpenCLDefaultSharedBytes);
  EXPECT_FALSE(opencl::opencl_local_memory_bytes("no-such-opencl-device"));
}

// R_l, read at other than the loop's indices, is replicated: 96 x 128 x 4 = 48 KiB in
// every work-item, above opencl's 32 KiB private budget, so it is staged in __local.
constexpr const char* kStagedSource = R"PY(
import tilelang.language as T

@T.prim_func
def scale(A: T.Tensor((64, 128), "float32"), R: T.Tensor((96, 128), "float32")):
    with T.Kernel(1, threads=64) as bx:
        A_l = T.alloc_fragment((64, 128), "float32")
        R_l = T.alloc_fragment((96, 128), "float32")
        T.copy(R, R_l)
        for i, j in T.Parallel(64, 128):
            A_l[i, j] = A[i, j] * R_l[(i * 3) % 96, j]
        T.copy(A_l, A)
)PY";

class OpenCLDeviceSharedMemory : public testing::EngineTest {};

TEST_F(OpenCLDeviceSharedMemory, AFragmentAbove16KiBIsStagedInTheDevicesMemory) {
  tilec::initialize();
  const auto& backend = opencl::opencl_execution_backend();
  if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
  std::optional<int64_t> device = opencl::opencl_local_memory_bytes("");
  if (!device || *device < 96 * 128 * 4) GTEST_SKIP() << "needs a device with 48 KiB of __local";
  ir::IRModule mod = ir::parse_kernel_source(kStagedSource);
  Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
  EXPECT_NE(kernel.device_source().find("__local float R_l["), std::string::npos)
      << kernel.device_source();
  auto result = testing::run_and_compare(kernel, mod.functions().front());
  EXPECT_TRUE(result.ok) << result.detail;
  // With the conservative limit given explicitly, the fragment fits nowhere.
  try {
    compile(mod, "opencl -max_shared_memory_per_block=16384", std::nullopt, "opencl");
    FAIL() << "expected the register budget's error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("'R_l': 49152 bytes per thread"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tilec
