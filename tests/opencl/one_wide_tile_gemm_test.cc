// Issue 33: a gemm whose block is one column (block_N=1) or one row (block_M=1) wide, over two
// or more k-tiles, wrote all zeros on PoCL and reported success. Only some threads own an
// accumulator element, so the gemm's per-thread loop sits under a guard between the k-loop's
// barriers, a shape PoCL 3.1's optimizer miscompiles (see program_build_options in
// src/opencl/opencl_execution_backend.cc). Checked against the interpreter; skips with the
// reason when no OpenCL device is found.
#include "../engine/test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/opencl/opencl_execution_backend.h"

#include <fmt/format.h>

namespace tilec {
namespace {

class OneWideTileGemm : public testing::EngineTest {
 protected:
  void SetUp() override {
    const auto& backend = opencl::opencl_execution_backend();
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
  }

  void expect_matches(const std::string& source) {
    ir::IRModule mod = ir::parse_kernel_source(source);
    Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
    auto result = testing::run_and_compare(kernel, mod.functions().front());
    EXPECT_TRUE(result.ok) << result.detail << "\n" << kernel.device_source();
  }
};

// C (M x N) = A (M x 64) @ B^T, B of shape (N x 64), in bm x bn x 32 tiles on 128 threads: two
// k-tiles, and with a one-wide tile fewer accumulator elements than threads.
std::string gemm_nt_source(int m, int n, int bm, int bn) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor(({m}, 64), "float32"), B: T.Tensor(({n}, 64), "float32"), C: T.Tensor(({m}, {n}), "float32")):
    with T.Kernel(T.ceildiv({n}, {bn}), T.ceildiv({m}, {bm}), threads=128) as (bx, by):
        A_s = T.alloc_shared(({bm}, 32), "float32")
        B_s = T.alloc_shared(({bn}, 32), "float32")
        C_l = T.alloc_fragment(({bm}, {bn}), "float32")
        T.clear(C_l)
        for k in T.Pipelined(2, num_stages=2):
            T.copy(A[by * {bm}, k * 32], A_s)
            T.copy(B[bx * {bn}, k * 32], B_s)
            T.gemm(A_s, B_s, C_l, transpose_B=True)
        T.copy(C_l, C[by * {bm}, bx * {bn}])
)PY",
                     fmt::arg("m", m), fmt::arg("n", n), fmt::arg("bm", bm), fmt::arg("bn", bn));
}

TEST_F(OneWideTileGemm, OneColumnTileOverTwoKTilesMatchesTheInterpreter) {
  expect_matches(gemm_nt_source(/*m=*/64, /*n=*/4, /*bm=*/64, /*bn=*/1));
}

TEST_F(OneWideTileGemm, OneRowTileOverTwoKTilesMatchesTheInterpreter) {
  expect_matches(gemm_nt_source(/*m=*/4, /*n=*/64, /*bm=*/1, /*bn=*/64));
}

}  // namespace
}  // namespace tilec
