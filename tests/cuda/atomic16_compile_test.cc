// The cuda backend's 16-bit float atomics (compare-and-swap on the aligned 32-bit word,
// codegen_cuda.cc's kAtomic16) through the real toolchain: a kernel with T.atomic_add,
// T.atomic_max and T.atomic_min on float16 and bfloat16 elements of global tensors and
// of a shared tile compiles through NVRTC for sm_80 and sm_90, the device code calls the
// helpers, and ptxas accepts NVRTC's PTX (with its 32-bit atom.cas) for that arch. Skips, saying
// why, without NVRTC or ptxas. Their results under contention are tested on the CPU and
// OpenCL backends (tests/engine/tilelang_real_constructs_test.cc) and on a GPU by
// scripts/gpu_check.sh.
#include "../engine/test_support.h"

#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/engine/compile.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAtomics16 = R"PY(
import tilelang.language as T

@T.prim_func
def atomics16(X: T.Tensor((256,), "float32"), H: T.Tensor((8,), "float16"),
              B: T.Tensor((8,), "bfloat16"), S: T.Tensor((8,), "float16")):
    with T.Kernel(4, threads=64) as bx:
        tile = T.alloc_shared((8,), "float16")
        T.clear(tile)
        for i in T.Parallel(64):
            v = X[bx * 64 + i]
            T.atomic_add(H[i % 8], v)
            T.atomic_max(H[(i + 1) % 8], v)
            T.atomic_min(H[(i + 2) % 8], v)
            T.atomic_add(B[i % 8], v)
            T.atomic_max(B[(i + 3) % 8], v)
            T.atomic_min(B[(i + 5) % 8], v)
            T.atomic_add(tile[i % 8], v)
        for j in T.Parallel(8):
            T.atomic_add(S[j], tile[j])
)PY";

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CudaAtomics16 : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaAtomics16, CompileThroughNvrtcAndPtxas) {
  auto nvrtc = exec::get_execution_backend(cuda::kNvrtcBackendName);
  if (!nvrtc->available()) GTEST_SKIP() << nvrtc->unavailable_reason();
  const std::string& arch = GetParam();
  // A fresh compile (no kernel cache): device.ptx lives in the kernel's build directory.
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  Kernel kernel =
      compile(ir::parse_kernel_source(kAtomics16), "cuda -arch=" + arch, std::nullopt, "nvrtc");
  const std::string& src = kernel.device_source();
  for (const char* helper :
       {"tilec_atomic_add_f16(", "tilec_atomic_max_f16(", "tilec_atomic_min_f16(",
        "tilec_atomic_add_bf16(", "tilec_atomic_max_bf16(", "tilec_atomic_min_bf16("})
    EXPECT_NE(src.find(helper), std::string::npos) << helper << "\n" << src;
  fs::path ptx = kernel.library_path().parent_path() / "device.ptx";
  ASSERT_TRUE(fs::exists(ptx)) << ptx;
  std::string text = read_text(ptx);
  EXPECT_NE(text.find(".target " + arch), std::string::npos) << ptx;
  EXPECT_NE(text.find(".cas.b32"), std::string::npos) << "no 32-bit CAS loop in\n" << text;
  fs::path ptxas = cuda::cuda_toolkit_root() / "bin" / "ptxas";
  if (!fs::exists(ptxas)) GTEST_SKIP() << "no ptxas at " << ptxas;
  exec::ProcessResult checked = exec::run_process(
      {ptxas.string(), "-arch=" + arch, ptx.string(), "-o", ptx.string() + ".cubin"});
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
}

INSTANTIATE_TEST_SUITE_P(Archs, CudaAtomics16, ::testing::Values("sm_80", "sm_90"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tilec
