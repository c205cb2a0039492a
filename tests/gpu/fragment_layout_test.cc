// Fragment layouts inferred from how fragments are used (gemm accumulators and
// elementwise tiles partitioned over the threads, reduction results and broadcast reads
// replicated), recorded on the lowered function, and the error when none fits.
#include "simt_support.h"

namespace tilec {
namespace {

const char* kSoftmax = R"PY(
import tilelang.language as T

@T.prim_func
def softmax(X: T.Tensor((64, 128), "float32"), Y: T.Tensor((64, 128), "float32")):
    with T.Kernel(4, threads=128) as bx:
        X_local = T.alloc_fragment((16, 128), "float32")
        row_max = T.alloc_fragment((16,), "float32")
        T.copy(X[bx * 16, 0], X_local)
        T.reduce_max(X_local, row_max, dim=1)
        for i, j in T.Parallel(16, 128):
            X_local[i, j] = X_local[i, j] - row_max[i]
        T.copy(X_local, Y[bx * 16, 0])
)PY";

TEST(FragmentLayout, ElementwiseTilesArePartitionedAndReductionResultsReplicated) {
  ir::IRModule mod = testing::lower_for_simt(kSoftmax);
  std::string x = testing::layout_of(mod, "X_local");
  EXPECT_NE(x.find("cyclic over 128 threads"), std::string::npos) << x;
  EXPECT_NE(x.find("(i*128 + j) % 128"), std::string::npos) << x;
  EXPECT_NE(x.find("16 registers per thread"), std::string::npos) << x;
  std::string m = testing::layout_of(mod, "row_max");
  EXPECT_NE(m.find("replicated in each of 128 threads"), std::string::npos) << m;
  EXPECT_NE(m.find("T.reduce_max at line 10"), std::string::npos) << m;
  // The lowered IR shows the layouts and the registers.
  std::string text = ir::print(mod);
  EXPECT_NE(text.find("# attr tilec.layout.X_local"), std::string::npos);
  EXPECT_NE(text.find("X_local = T.alloc_local((16,), \"float32\")"), std::string::npos) << text;
  EXPECT_NE(text.find("row_max = T.alloc_local((16,), \"float32\")"), std::string::npos) << text;
}

TEST(FragmentLayout, GemmAccumulatorIsPartitionedOverTheThreads) {
  ir::IRModule mod = testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((64, 32), "float32"), B: T.Tensor((32, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=256) as bx:
        A_s = T.alloc_shared((64, 32), "float32")
        B_s = T.alloc_shared((32, 64), "float32")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.copy(A, A_s)
        T.copy(B, B_s)
        T.gemm(A_s, B_s, C_l, clear_accum=True)
        T.copy(C_l, C)
)PY");
  // Register-blocked: 256 threads as 16 x 16, each holding a 4 x 4 micro-tile.
  std::string c = testing::layout_of(mod, "C_l");
  EXPECT_NE(c.find("micro-tile 4x4 over 256 threads"), std::string::npos) << c;
  EXPECT_NE(c.find("thread i % 16 * 16 + j // 4, register i // 16 * 4 + j % 4"), std::string::npos)
      << c;
  EXPECT_NE(c.find("16 registers per thread"), std::string::npos) << c;
  EXPECT_NE(c.find("accumulator of T.gemm at line 12"), std::string::npos) << c;
}

TEST(FragmentLayout, BroadcastReadOfAGemmAccumulatorHasNoLayout) {
  try {
    testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def bad(A: T.Tensor((32, 32), "float32"), C: T.Tensor((32, 32), "float32")):
    with T.Kernel(1, threads=64) as bx:
        A_s = T.alloc_shared((32, 32), "float32")
        C_l = T.alloc_fragment((32, 32), "float32")
        T.copy(A, A_s)
        T.gemm(A_s, A_s, C_l, clear_accum=True)
        for i, j in T.Parallel(32, 32):
            C[i, j] = C_l[j, i]
)PY");
    FAIL() << "expected an error";
  } catch (const ir::IRError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("no layout fits fragment 'C_l'"), std::string::npos) << what;
    EXPECT_NE(what.find("T.gemm at line 10"), std::string::npos) << what;
    EXPECT_NE(what.find("T.Parallel at line 11"), std::string::npos) << what;
    EXPECT_NE(what.find("Read it through a T.copy"), std::string::npos) << what;
  }
}

TEST(LowerSimt, TooManyThreadsNamesTheLimitAndTheLine) {
  try {
    testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def wide(A: T.Tensor((1024,), "float32")):
    with T.Kernel(1, threads=512) as bx:
        for i in T.Parallel(1024):
            A[i] = 1.0
)PY");
    FAIL() << "expected an error";
  } catch (const ir::IRError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("line 6"), std::string::npos) << what;
    EXPECT_NE(what.find("512 threads per block"), std::string::npos) << what;
    EXPECT_NE(what.find("at most 256 (max_threads_per_block)"), std::string::npos) << what;
  }
  // The same kernel lowers when the target allows it.
  EXPECT_NO_THROW(testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def wide(A: T.Tensor((1024,), "float32")):
    with T.Kernel(1, threads=512) as bx:
        for i in T.Parallel(1024):
            A[i] = 1.0
)PY",
                                          "cl_test -max_threads_per_block=1024"));
}

}  // namespace
}  // namespace tilec
