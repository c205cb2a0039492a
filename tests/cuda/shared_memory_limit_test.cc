// Shared-memory limits on cuda: a kernel whose shared tiles exceed the arch's shared
// memory per block (48 KB static, up to the opt-in maximum dynamically: 163 KB on sm_80,
// 99 KB on sm_86, 227 KB on sm_90) is refused when it is compiled, naming the kernel,
// the bytes, the limit and what to change; under the limit it compiles (through NVRTC
// and ptxas where they are installed).
#include "../engine/test_support.h"
#include "build_paths.h"

#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cuda/shared_memory_limit.h"
#include "tilec/frontend/parser.h"

namespace tilec {
namespace {

// examples/gemm.py with 128 x 128 float16 tiles of A and B, in the 3 stages of its
// cp.async pipeline on sm_80+: 3 x (32 KB + 32 KB) = 192 KB.
Kernel compile_big_gemm(const std::string& arch, const std::string& backend = "source") {
  std::map<std::string, std::string> big = {
      {"block_M", "128"}, {"block_N", "128"}, {"block_K", "128"}};
  return compile(ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/gemm.py", big),
                 "cuda -arch=" + arch, std::nullopt, backend);
}

TEST(CudaSharedMemoryLimit, PerArchitecture) {
  EXPECT_EQ(cuda::max_shared_bytes_per_block("sm_80"), 166912);
  EXPECT_EQ(cuda::max_shared_bytes_per_block("sm_86"), 101376);
  EXPECT_EQ(cuda::max_shared_bytes_per_block("sm_90"), 232448);
  EXPECT_EQ(cuda::max_shared_bytes_per_block("sm_999"), std::nullopt);
}

TEST(CudaSharedMemoryLimit, AboveTheArchsMaximumIsACompileError) {
  for (const char* arch : {"sm_80", "sm_86"}) {
    SCOPED_TRACE(arch);
    try {
      compile_big_gemm(arch);
      FAIL() << "expected a shared-memory error";
    } catch (const std::exception& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("kernel 'gemm"), std::string::npos) << what;
      EXPECT_NE(what.find("196608 bytes of shared memory per block"), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("but ") + arch + " allows at most " +
                          std::to_string(*cuda::max_shared_bytes_per_block(arch))),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("smaller shared tiles"), std::string::npos) << what;
      EXPECT_NE(what.find("fewer T.Pipelined stages"), std::string::npos) << what;
    }
  }
}

TEST(CudaSharedMemoryLimit, UnderTheMaximumCompilesWithDynamicSharedMemory) {
  Kernel kernel = compile_big_gemm("sm_90");
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("= 196608;"), std::string::npos) << src;
  if (!cuda::nvrtc_unavailable_reason().empty()) GTEST_SKIP() << cuda::nvrtc_unavailable_reason();
  cuda::CudaCompileResult compiled = cuda::nvrtc_compile(src, "big_gemm.cu", "sm_90");
  EXPECT_FALSE(compiled.cubin.empty());
}

}  // namespace
}  // namespace tilec
