// T.reduce_* on cuda reduces across the threads of a warp with __shfl_xor_sync
// butterflies (gpu/subgroup.h; attribute subgroup_reduce, on by default for cuda) when the
// block is whole warps, else through the shared-memory tree. The source is checked as
// text, then compiled through NVRTC and ptxas where the toolkit is installed (no GPU
// runs it here).
#include "../engine/test_support.h"

#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace tilec {
namespace {

namespace fs = std::filesystem;

std::string row_reduce_source(int threads) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def row_reduce(X: T.Tensor((20, 70), "float32"), M: T.Tensor((20,), "float32"),
               S: T.Tensor((20,), "float32")):
    with T.Kernel(1, threads={}) as bx:
        X_local = T.alloc_fragment((20, 70), "float32")
        m = T.alloc_fragment((20,), "float32")
        s = T.alloc_fragment((20,), "float32")
        T.copy(X, X_local)
        T.reduce_max(X_local, m, dim=1)
        T.reduce_sum(X_local, s, dim=1)
        T.copy(m, M)
        T.copy(s, S)
)PY",
                     threads);
}

TEST(CudaSubgroupReduce, WarpShufflesForWholeWarps) {
  Kernel kernel = compile(ir::parse_kernel_source(row_reduce_source(64)), "cuda -arch=sm_80",
                          std::nullopt, "source");
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("v += __shfl_xor_sync(0xffffffffu, v, offset);"), std::string::npos) << src;
  EXPECT_NE(src.find("tilec_subgroup_reduce_max("), std::string::npos) << src;
  EXPECT_NE(src.find("tilec_subgroup_reduce_sum("), std::string::npos) << src;
  EXPECT_NE(src.find("tilec_subgroup_local_id()"), std::string::npos) << src;

  Kernel tree = compile(ir::parse_kernel_source(row_reduce_source(48)), "cuda -arch=sm_80",
                        std::nullopt, "source");
  EXPECT_EQ(tree.device_source().find("__shfl_xor_sync"), std::string::npos)
      << tree.device_source();
  Kernel off = compile(ir::parse_kernel_source(row_reduce_source(64)),
                       "cuda -arch=sm_80 -subgroup_reduce=0", std::nullopt, "source");
  EXPECT_EQ(off.device_source().find("__shfl_xor_sync"), std::string::npos) << off.device_source();
}

TEST(CudaSubgroupReduce, CompilesThroughNvrtcAndPtxas) {
  auto nvrtc = exec::get_execution_backend("nvrtc");
  if (!nvrtc->available()) GTEST_SKIP() << nvrtc->unavailable_reason();
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  Kernel kernel = compile(ir::parse_kernel_source(row_reduce_source(64)), "cuda -arch=sm_80",
                          std::nullopt, "nvrtc");
  fs::path ptx = kernel.library_path().parent_path() / "device.ptx";
  ASSERT_TRUE(fs::exists(ptx)) << ptx;
  fs::path ptxas = cuda::cuda_toolkit_root() / "bin" / "ptxas";
  if (!fs::exists(ptxas)) GTEST_SKIP() << "no ptxas at " << ptxas;
  exec::ProcessResult checked = exec::run_process(
      {ptxas.string(), "-arch=sm_80", ptx.string(), "-o", ptx.string() + ".cubin"});
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
  std::ifstream in(ptx);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("shfl.sync.bfly"), std::string::npos) << ptx;
}

}  // namespace
}  // namespace tilec
