// Vectorized copies and T.Parallel splits on a real OpenCL device (PoCL here): every
// dtype, aligned and misaligned tile offsets, edge tiles whose vectors straddle the
// tensor's edge, symbolic strides checked at run time, and elementwise bodies staged
// through registers all match the interpreter; the generated OpenCL C uses vloadN /
// vstoreN where the lowering vectorized and scalar accesses elsewhere.
#include "../engine/test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/opencl/opencl_execution_backend.h"

#include <fmt/format.h>

namespace tilec {
namespace {

class VectorizedOpenCL : public testing::EngineTest {
 protected:
  // Compiles for opencl, runs on random inputs and compares with the interpreter;
  // returns the device source.
  std::string expect_matches(const std::string& source, const std::string& target = "opencl") {
    const auto& backend = opencl::opencl_execution_backend();
    if (!backend->available()) return "";
    ir::IRModule mod = ir::parse_kernel_source(source);
    Kernel kernel = compile(mod, target, std::nullopt, "opencl");
    for (const auto& f : mod.functions()) {
      auto result = testing::run_and_compare(kernel, f, {{"M", 77}, {"N", 45}});
      EXPECT_TRUE(result.ok) << f->name << ": " << result.detail << "\n" << kernel.device_source();
    }
    return kernel.device_source();
  }
  void SetUp() override {
    testing::EngineTest::SetUp();
    const auto& backend = opencl::opencl_execution_backend();
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
  }
};

// A tile of (16, 32) moved in and out of shared memory at column offset `offset`, with a
// fused elementwise step in between: one kernel function named `name`.
std::string tile_function(const std::string& name, const std::string& dtype,
                          const std::string& shape, int offset) {
  return fmt::format(R"PY(
@T.prim_func
def {4}(A: T.Tensor({1}, "{0}"), B: T.Tensor({1}, "{0}")):
    with T.Kernel(3, 4, threads=64) as (bx, by):
        S = T.alloc_shared((16, 32), "{0}")
        T.copy(A[by * 16, bx * 32 + {2}], S)
        for i, j in T.Parallel(16, 32):
            S[i, j] = S[i, j] + S[i, j]
        T.copy(S, B[by * 16, bx * 32])
)PY",
                     dtype, shape, offset, 0, name);
}

const char* kImport = "import tilelang.language as T\n";

std::string tile_kernel(const std::string& dtype, const std::string& shape, int offset) {
  return kImport + tile_function("k", dtype, shape, offset);
}

TEST_F(VectorizedOpenCL, EveryDtypeAlignedAndMisalignedMatchesTheInterpreter) {
  // One module (one OpenCL program build) with a kernel per dtype and offset. 60 rows x 90
  // columns: the last tiles of both dimensions are partial, and the last block's vectors
  // straddle column 90.
  std::string source = kImport;
  for (const char* dtype : {"float32", "float16", "bfloat16", "int8", "int32", "uint8"})
    for (int offset : {0, 1, 2, 4})
      source += tile_function(fmt::format("k_{}_{}", dtype, offset), dtype, "(60, 90)", offset);
  expect_matches(source);
}

TEST_F(VectorizedOpenCL, GeneratedSourceIsVectorWhereAlignedAndScalarWhereNot) {
  std::string aligned = expect_matches(tile_kernel("float16", "(64, 96)", 0));
  EXPECT_NE(aligned.find("vload8("), std::string::npos) << aligned;
  EXPECT_NE(aligned.find("vstore8("), std::string::npos) << aligned;
  std::string off = expect_matches(tile_kernel("float32", "(64, 96)", 0), "opencl -vector_bytes=0");
  EXPECT_EQ(off.find("vload"), std::string::npos) << off;
  // A column offset of 1 element is checked at run time, with the scalar path beside it.
  std::string odd = expect_matches(tile_kernel("float32", "(64, 96)", 1));
  EXPECT_NE(odd.find("vload4("), std::string::npos) << odd;
  EXPECT_NE(odd.find("} else {"), std::string::npos) << odd;
}

TEST_F(VectorizedOpenCL, SymbolicShapesAndElementwiseBodies) {
  std::string source = expect_matches(R"PY(
import tilelang.language as T

M = T.symbolic("M")
N = T.symbolic("N")

@T.prim_func
def k(A: T.Tensor((M, N), "float16"), Bias: T.Tensor((N,), "float32"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 8), threads=32) as (bx, by):
        for i, j in T.Parallel(8, 32):
            r = by * 8 + i
            c = bx * 32 + j
            if r < M and c < N:
                C[r, c] = T.cast(A[r, c], "float32") * 0.5 + Bias[c]
)PY");
  EXPECT_NE(source.find("vload4("), std::string::npos) << source;
}

TEST_F(VectorizedOpenCL, MicroTileAccumulatorsMoveVectorsAndMatchAtOddEdges) {
  // C = A @ B + Bias over 64 x 64 tiles on 128 threads (micro-tiles of 8 x 4: runs of 4
  // float32) at M = 77, N = 45: partial tiles in both dimensions, rows of 45 elements
  // (unaligned, checked at run time) and runs straddling column 45, in float32 and with
  // float16 inputs and output.
  for (const char* out : {"float32", "float16"}) {
    SCOPED_TRACE(out);
    std::string source = expect_matches(fmt::format(R"PY(
import tilelang.language as T

M = T.symbolic("M")
N = T.symbolic("N")

@T.prim_func
def mm(A: T.Tensor((M, 32), "{0}"), B: T.Tensor((32, N), "{0}"), Bias: T.Tensor((128,), "float32"),
       C: T.Tensor((M, N), "{0}")):
    with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
        A_s = T.alloc_shared((64, 32), "{0}")
        B_s = T.alloc_shared((32, 64), "{0}")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.copy(A[by * 64, 0], A_s)
        T.copy(B[0, bx * 64], B_s)
        T.gemm(A_s, B_s, C_l, clear_accum=True)
        for i, j in T.Parallel(64, 64):
            C_l[i, j] = C_l[i, j] + Bias[bx * 64 + j]
        T.copy(C_l, C[by * 64, bx * 64])
)PY",
                                                    out));
    if (source.empty()) return;
    // The store of C from the accumulator's registers is one vector per run.
    EXPECT_NE(source.find("vstore4("), std::string::npos) << source;
  }
}

}  // namespace
}  // namespace tilec
