// The per-thread register budget (private_bytes_per_thread): checked once the layouts
// are chosen, a located error listing every fragment's bytes per thread; a replicated
// fragment (a gemm operand among them) too large alone is staged in shared memory where
// the shared-memory limit leaves room, and so is the largest replicated one while all
// together exceed the budget; the attribute raises or turns off the budget.
#include "simt_support.h"

#include "tilec/ir/source_error.h"

#include <fmt/format.h>

namespace tilec {
namespace {

// A 64 x 64 float32 fragment over 64 threads: cyclic, 64 registers = 256 bytes per
// thread; a `rows` x 64 one read at other than the loop's indices is replicated.
std::string elementwise_source(int rows) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def scale(A: T.Tensor((64, 64), "float32"), R: T.Tensor(({rows}, 64), "float32")):
    with T.Kernel(1, threads=64) as bx:
        A_l = T.alloc_fragment((64, 64), "float32")
        R_l = T.alloc_fragment(({rows}, 64), "float32")
        T.copy(R, R_l)
        for i, j in T.Parallel(64, 64):
            A_l[i, j] = A[i, j] * R_l[i % {rows}, j]
        T.copy(A_l, A)
)PY",
                     fmt::arg("rows", rows));
}

TEST(RegisterBudget, FragmentsAboveTheBudgetAreALocatedError) {
  // R_l is replicated: 3 x 64 x 4 = 768 bytes in every thread (within the budget alone),
  // plus A_l's 256: 1024 bytes, above cuda's 1020; the shared memory left (512 bytes)
  // cannot hold R_l either.
  try {
    testing::lower_for_simt(elementwise_source(3), "gpu_test -max_shared_memory_per_block=512");
    FAIL() << "expected an error";
  } catch (const ir::LocatedError& e) {
    std::string what = e.what();
    EXPECT_EQ(e.span().line, 8) << what;  // R_l's T.alloc_fragment, the largest
    EXPECT_NE(what.find("kernel 'scale': the fragments need 1024 bytes of private memory"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("above the 1020 bytes target 'gpu_test"), std::string::npos) << what;
    EXPECT_NE(what.find("'R_l': 768 bytes per thread, R_l[3, 64] float32: replicated"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("'A_l': 256 bytes per thread"), std::string::npos) << what;
    EXPECT_NE(what.find("make it a T.alloc_shared tile"), std::string::npos) << what;
    EXPECT_NE(what.find("raise -private_bytes_per_thread"), std::string::npos) << what;
  }
  // Within the budget, raised, or turned off: it lowers.
  EXPECT_NO_THROW(testing::lower_for_simt(elementwise_source(2), "gpu_test"));
  EXPECT_NO_THROW(testing::lower_for_simt(elementwise_source(3), "cl_test"));
  EXPECT_NO_THROW(
      testing::lower_for_simt(elementwise_source(3), "gpu_test -private_bytes_per_thread=4096"));
  EXPECT_NO_THROW(
      testing::lower_for_simt(elementwise_source(3), "gpu_test -private_bytes_per_thread=0"));
}

TEST(RegisterBudget, TheLargestReplicatedFragmentIsStagedWhenAllTogetherExceedTheBudget) {
  // R_l (768 bytes replicated) fits the budget alone, but with A_l's 256 the fragments
  // need 1024 bytes per thread, above cuda's 1020: R_l goes to shared memory.
  ir::IRModule mod = testing::lower_for_simt(elementwise_source(3), "gpu_test");
  std::string r = testing::layout_of(mod, "R_l");
  EXPECT_NE(r.find("R_l[3, 64] float32: staged in shared memory (768 bytes)"), std::string::npos)
      << r;
  EXPECT_NE(r.find("the fragments together need 1024, above the budget of 1020"), std::string::npos)
      << r;
}

TEST(RegisterBudget, AReplicatedFragmentAboveTheBudgetAloneIsStagedInShared) {
  // R_l replicated would be 8 x 64 x 4 = 2048 bytes per thread: it goes to shared memory,
  // where the block's threads read the rows they need.
  ir::IRModule mod = testing::lower_for_simt(elementwise_source(8), "gpu_test");
  std::string r = testing::layout_of(mod, "R_l");
  EXPECT_NE(r.find("R_l[8, 64] float32: staged in shared memory (2048 bytes)"), std::string::npos)
      << r;
  EXPECT_NE(r.find("2048 bytes of each thread's registers, above the budget of 1020"),
            std::string::npos)
      << r;
  EXPECT_NE(ir::print(mod).find("R_l = T.alloc_shared("), std::string::npos) << ir::print(mod);
  // Unless the shared memory left cannot hold it either.
  EXPECT_THROW(
      testing::lower_for_simt(elementwise_source(8), "gpu_test -max_shared_memory_per_block=1024"),
      ir::LocatedError);
}

TEST(RegisterBudget, PartitionedFragmentsAskForMoreThreads) {
  // 128 x 128 float32 over 32 threads: 512 registers, 2048 bytes per thread.
  try {
    testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def big(A: T.Tensor((128, 128), "float32")):
    with T.Kernel(1, threads=32) as bx:
        A_l = T.alloc_fragment((128, 128), "float32")
        T.copy(A, A_l)
        for i, j in T.Parallel(128, 128):
            A_l[i, j] = A_l[i, j] * 2.0
        T.copy(A_l, A)
)PY",
                            "gpu_test");
    FAIL() << "expected an error";
  } catch (const ir::LocatedError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("'A_l': 2048 bytes per thread, A_l[128, 128] float32: cyclic"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("use more threads (threads= in T.Kernel) or smaller tiles"),
              std::string::npos)
        << what;
  }
}

TEST(RegisterBudget, AGemmOperandTooLargeToReplicateIsStagedInShared) {
  // B_f (32 x 64 float32, 8 KB) would be replicated in all 64 threads as the B operand.
  ir::IRModule mod = testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((64, 32), "float32"), B: T.Tensor((32, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=64) as bx:
        A_s = T.alloc_shared((64, 32), "float32")
        B_f = T.alloc_fragment((32, 64), "float32")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.copy(A, A_s)
        T.copy(B, B_f)
        T.gemm(A_s, B_f, C_l, clear_accum=True)
        T.copy(C_l, C)
)PY",
                                             "cl_test -private_bytes_per_thread=4096");
  std::string b = testing::layout_of(mod, "B_f");
  EXPECT_NE(b.find("B_f[32, 64] float32: staged in shared memory (8192 bytes)"), std::string::npos)
      << b;
  EXPECT_NE(b.find("8192 bytes of each thread's registers, above the budget of 4096"),
            std::string::npos)
      << b;
  // With the default opencl budget (32 KiB) it stays replicated in registers.
  std::string kept = testing::layout_of(testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((64, 32), "float32"), B: T.Tensor((32, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=64) as bx:
        A_s = T.alloc_shared((64, 32), "float32")
        B_f = T.alloc_fragment((32, 64), "float32")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.copy(A, A_s)
        T.copy(B, B_f)
        T.gemm(A_s, B_f, C_l, clear_accum=True)
        T.copy(C_l, C)
)PY"),
                                        "B_f");
  EXPECT_NE(kept.find("B_f[32, 64] float32: replicated"), std::string::npos) << kept;
}

}  // namespace
}  // namespace tilec
