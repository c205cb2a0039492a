// T.gemm's policy= (T.GemmWarpPolicy, gemm_policy.h) in the tensor-core gemm: the warp
// split follows TileLang's ComputeWarpPartition for mma.sync (FullRow: warps along M,
// FullCol: along N, Square: the per-warp tile closest to M / N), the front end records the
// policy per gemm, the accumulator's layout shows the split, and the kernels of each policy
// compile through NVRTC with ptxas accepting the PTX.
#include "../engine/test_support.h"

#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cuda/mma_gemm.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/gemm_policy.h"

#include <fmt/format.h>

namespace tilec {
namespace {

namespace fs = std::filesystem;
using ir::GemmWarpPolicy;

std::pair<int64_t, int64_t> split(int64_t M, int64_t N, int64_t threads, GemmWarpPolicy p) {
  std::optional<cuda::WarpTiling> w = cuda::choose_warp_tiling(M, N, threads, p);
  if (!w) return {0, 0};
  EXPECT_EQ(w->WM * w->warps_m, M);
  EXPECT_EQ(w->WN * w->warps_n, N);
  return {w->warps_m, w->warps_n};
}

TEST(GemmWarpPolicy, PartitionsFollowTileLang) {
  using P = std::pair<int64_t, int64_t>;
  // 8 warps on 128 x 128.
  EXPECT_EQ(split(128, 128, 256, GemmWarpPolicy::kFullRow), P(8, 1));
  EXPECT_EQ(split(128, 128, 256, GemmWarpPolicy::kFullCol), P(1, 8));
  EXPECT_EQ(split(128, 128, 256, GemmWarpPolicy::kSquare), P(2, 4));
  // M too short for every warp along it: M / 16 warps there, the rest along N.
  EXPECT_EQ(split(64, 128, 256, GemmWarpPolicy::kFullRow), P(4, 2));
  EXPECT_EQ(split(128, 32, 256, GemmWarpPolicy::kFullCol), P(2, 4));
  // Square balances per-warp tiles against M / N: 128 x 64 on 8 warps -> 64 x 16 tiles.
  EXPECT_EQ(split(128, 64, 256, GemmWarpPolicy::kSquare), P(2, 4));
  EXPECT_EQ(split(64, 64, 128, GemmWarpPolicy::kSquare), P(2, 2));
  EXPECT_EQ(split(16, 32, 128, GemmWarpPolicy::kSquare), P(1, 4));
  // A split that does not tile the accumulator (M = 48: 3 warps along M, 4 warps in all):
  // no tensor-core tiling, the gemm goes to simt.gemm.
  EXPECT_EQ(split(48, 64, 128, GemmWarpPolicy::kFullRow), P(0, 0));
  // The default is Square.
  EXPECT_EQ(split(128, 128, 256, GemmWarpPolicy::kSquare),
            std::make_pair(cuda::choose_warp_tiling(128, 128, 256)->warps_m,
                           cuda::choose_warp_tiling(128, 128, 256)->warps_n));
}

std::string policy_kernel(const char* policy) {
  return fmt::format(R"PY(import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((256, 256), "float16"), B: T.Tensor((256, 256), "float16"), C: T.Tensor((256, 256), "float32")):
    with T.Kernel(2, 2, threads=256) as (bx, by):
        A_s = T.alloc_shared((128, 32), "float16")
        B_s = T.alloc_shared((32, 128), "float16")
        C_l = T.alloc_fragment((128, 128), "float32")
        T.clear(C_l)
        for k in T.Pipelined(8, num_stages=2):
            T.copy(A[by * 128, k * 32], A_s)
            T.copy(B[k * 32, bx * 128], B_s)
            T.gemm(A_s, B_s, C_l{0})
        T.copy(C_l, C[by * 128, bx * 128])
)PY",
                     policy);
}

std::string layout_of(const Kernel& kernel) {
  for (const auto& f : kernel.lowered().functions()) {
    auto it = f->attrs.find("tilec.layout.C_l");
    if (it != f->attrs.end()) return std::get<std::string>(it->second);
  }
  return "";
}

TEST(GemmWarpPolicy, TheFrontEndRecordsThePolicyPerGemm) {
  ir::IRModule mod = ir::parse_kernel_source(policy_kernel(", policy=T.GemmWarpPolicy.FullRow"));
  const auto& attrs = mod.functions()[0]->attrs;
  auto it = attrs.find("tilec.gemm_policy.0");
  ASSERT_NE(it, attrs.end()) << "attributes: " << attrs.size();
  EXPECT_EQ(std::get<std::string>(it->second), "FullRow");
  EXPECT_EQ(ir::gemm_warp_policy(attrs, 0), GemmWarpPolicy::kFullRow);
  EXPECT_EQ(ir::gemm_warp_policy(attrs, 1), GemmWarpPolicy::kSquare);
  // Square is the default: nothing recorded.
  ir::IRModule square = ir::parse_kernel_source(policy_kernel(", policy=T.GemmWarpPolicy.Square"));
  for (const auto& [key, value] : square.functions()[0]->attrs)
    EXPECT_FALSE(ir::is_gemm_policy_attr(key)) << key;
}

TEST(GemmWarpPolicy, EachPolicysKernelCompilesWithItsSplit) {
  struct Case {
    const char* policy;
    const char* split;
  };
  const bool nvrtc = cuda::nvrtc_unavailable_reason().empty();
  fs::path ptxas = cuda::cuda_toolkit_root() / "bin" / "ptxas";
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  for (const Case& c : {Case{"", "warps 2x4, 4x4 tiles each"},
                        Case{", policy=T.GemmWarpPolicy.FullRow", "warps 8x1, 1x16 tiles each"},
                        Case{", policy=T.GemmWarpPolicy.FullCol", "warps 1x8, 8x2 tiles each"}}) {
    SCOPED_TRACE(c.policy);
    Kernel kernel = compile(ir::parse_kernel_source(policy_kernel(c.policy)), "cuda -arch=sm_80",
                            std::nullopt, nvrtc ? "nvrtc" : "source");
    EXPECT_NE(layout_of(kernel).find(c.split), std::string::npos) << layout_of(kernel);
    if (!nvrtc || !fs::exists(ptxas)) continue;
    fs::path ptx = kernel.library_path().parent_path() / "device.ptx";
    ASSERT_TRUE(fs::exists(ptx));
    exec::ProcessResult checked =
        exec::run_process({ptxas.string(), "-arch=sm_80", ptx.string(), "-o", ptx.string() + ".o"});
    EXPECT_EQ(checked.exit_code, 0) << checked.output;
  }
}

}  // namespace
}  // namespace tilec
