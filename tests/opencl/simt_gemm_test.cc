// The register-blocked SIMT gemm on PoCL against the interpreter: every thread computes a
// micro-tile of the accumulator fragment, which elementwise code, reductions and copies of
// that fragment then follow. Edge tiles (M, N, K not multiples of the tiles), the four
// transpose combinations, and float32 / float16 / bfloat16 operands with a float32
// accumulator. Skips with the reason when no OpenCL device is found.
#include "../engine/test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"
#include "tilec/opencl/opencl_execution_backend.h"

#include <fmt/format.h>

namespace tilec {
namespace {

class SimtGemm : public testing::EngineTest {
 protected:
  void SetUp() override {
    const auto& backend = opencl::opencl_execution_backend();
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
  }

  Kernel compile_for_opencl(const std::string& source) {
    return compile(ir::parse_kernel_source(source), "opencl", std::nullopt, "opencl");
  }

  void expect_matches(const std::string& source) {
    ir::IRModule mod = ir::parse_kernel_source(source);
    Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
    auto result = testing::run_and_compare(kernel, mod.functions().front());
    EXPECT_TRUE(result.ok) << result.detail << "\n" << kernel.device_source();
  }
};

// C (70 x 50) = A (70 x 45) @ B (45 x 50) in 32 x 32 x 16 tiles on 64 threads: 4 x 4
// micro-tiles, every tile edge masked in M, N and K.
std::string gemm_source(bool ta, bool tb, const std::string& dtype) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor({a_shape}, "{dt}"), B: T.Tensor({b_shape}, "{dt}"), C: T.Tensor((70, 50), "float32")):
    with T.Kernel(T.ceildiv(50, 32), T.ceildiv(70, 32), threads=64) as (bx, by):
        A_s = T.alloc_shared({a_tile}, "{dt}")
        B_s = T.alloc_shared({b_tile}, "{dt}")
        C_l = T.alloc_fragment((32, 32), "float32")
        T.clear(C_l)
        for k in T.Pipelined(T.ceildiv(45, 16), num_stages=2):
            T.copy({a_copy}, A_s)
            T.copy({b_copy}, B_s)
            T.gemm(A_s, B_s, C_l, transpose_A={ta}, transpose_B={tb})
        T.copy(C_l, C[by * 32, bx * 32])
)PY",
                     fmt::arg("dt", dtype), fmt::arg("a_shape", ta ? "(45, 70)" : "(70, 45)"),
                     fmt::arg("b_shape", tb ? "(50, 45)" : "(45, 50)"),
                     fmt::arg("a_tile", ta ? "(16, 32)" : "(32, 16)"),
                     fmt::arg("b_tile", tb ? "(32, 16)" : "(16, 32)"),
                     fmt::arg("a_copy", ta ? "A[k * 16, by * 32]" : "A[by * 32, k * 16]"),
                     fmt::arg("b_copy", tb ? "B[bx * 32, k * 16]" : "B[k * 16, bx * 32]"),
                     fmt::arg("ta", ta ? "True" : "False"), fmt::arg("tb", tb ? "True" : "False"));
}

TEST_F(SimtGemm, RegisterBlockedWithEdgesTransposesAndDtypes) {
  // Every transpose combination in float32; the 16-bit dtypes with one transpose each
  // (every PoCL build takes seconds).
  struct Case {
    const char* dtype;
    bool ta, tb;
  };
  for (Case c :
       {Case{"float32", false, false}, Case{"float32", true, false}, Case{"float32", false, true},
        Case{"float32", true, true}, Case{"float16", true, false}, Case{"bfloat16", false, true}}) {
    SCOPED_TRACE(fmt::format("{} transpose_A={} transpose_B={}", c.dtype, c.ta, c.tb));
    std::string source = gemm_source(c.ta, c.tb, c.dtype);
    Kernel kernel = compile_for_opencl(source);
    // The accumulator is laid out in micro-tiles and the gemm keeps A and B in registers.
    std::string lowered = ir::print(kernel.lowered());
    EXPECT_NE(lowered.find("micro-tile 4x4 over 64 threads"), std::string::npos) << lowered;
    EXPECT_NE(lowered.find("C_l_a = T.alloc_local((4,)"), std::string::npos) << lowered;
    expect_matches(source);
  }
}

TEST_F(SimtGemm, ElementwiseReduceAndCopyFollowTheAccumulatorLayout) {
  std::string source = R"PY(
import tilelang.language as T

@T.prim_func
def epilogue(A: T.Tensor((64, 32), "float32"), B: T.Tensor((32, 64), "float32"),
             C: T.Tensor((64, 64), "float32"), D: T.Tensor((64, 64), "float32"),
             S: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_s = T.alloc_shared((64, 32), "float32")
        B_s = T.alloc_shared((32, 64), "float32")
        C_l = T.alloc_fragment((64, 64), "float32")
        D_l = T.alloc_fragment((64, 64), "float32")
        S_l = T.alloc_fragment((64,), "float32")
        T.copy(A, A_s)
        T.copy(B, B_s)
        T.gemm(A_s, B_s, C_l, clear_accum=True)
        for i, j in T.Parallel(64, 64):
            C_l[i, j] = T.max(C_l[i, j], 0.0) * 0.5
        T.copy(C_l, D_l)
        T.reduce_sum(D_l, S_l, dim=1)
        for i, j in T.Parallel(64, 64):
            D_l[i, j] = D_l[i, j] + C_l[i, j] - S_l[i] * 0.01
        T.copy(C_l, C)
        T.copy(D_l, D)
        T.copy(S_l, S)
)PY";
  Kernel kernel = compile_for_opencl(source);
  std::string lowered = ir::print(kernel.lowered());
  // D_l takes C_l's layout through the copy; the reduction result is replicated.
  EXPECT_NE(lowered.find("D_l[64, 64] float32: micro-tile 8x4 over 128 threads"), std::string::npos)
      << lowered;
  EXPECT_NE(lowered.find("follows 'C_l' through T.copy at line 19"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("S_l[64] float32: replicated"), std::string::npos) << lowered;
  expect_matches(source);
}

}  // namespace
}  // namespace tilec
