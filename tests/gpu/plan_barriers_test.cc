// Barrier planning: a barrier exactly where shared memory written by one thread may be
// read or overwritten by another, none where each thread touches only its own elements,
// and loop-carried hazards (the next tile overwriting one still being read) covered.
// Also the cooperative copy: split over the threads, coalesced, with edge masking.
#include "simt_support.h"

namespace tilec {
namespace {

std::string tile_kernel(const std::string& read) {
  return R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((100, 70), "float32"), C: T.Tensor((100, 70), "float32")):
    with T.Kernel(3, 4, threads=128) as (bx, by):
        A_tile = T.alloc_shared((32, 32), "float32")
        C_tile = T.alloc_fragment((32, 32), "float32")
        T.copy(A[by * 32, bx * 32], A_tile)
        for i, j in T.Parallel(32, 32):
            C_tile[i, j] = 2.0 * )PY" +
         read + R"PY(
        T.copy(C_tile, C[by * 32, bx * 32])
)PY";
}

TEST(PlanBarriers, NoBarrierWhereEachThreadReadsWhatItWrote) {
  // The copy and the T.Parallel split the same 32x32 space the same way (element by
  // element: with vectorized copies a thread writes 4 elements and reads 1, which needs
  // a barrier, see vector_split_test.cc).
  ir::IRModule mod =
      testing::lower_for_simt(tile_kernel("A_tile[i, j]"), "cl_test -vector_bytes=0");
  EXPECT_EQ(testing::count_barriers(mod.functions().front()->body), 0) << ir::print(mod);
}

TEST(PlanBarriers, BarrierWhereAThreadReadsAnotherThreadsElement) {
  ir::IRModule mod = testing::lower_for_simt(tile_kernel("A_tile[j, i]"));
  EXPECT_EQ(testing::count_barriers(mod.functions().front()->body), 1) << ir::print(mod);
  // It sits between the copy into A_tile and the loop reading it.
  std::string text = ir::print(mod);
  size_t copy = text.find("A_tile[");
  size_t sync = text.find("tvm_storage_sync(\"shared\")");
  size_t read = text.find("A_tile[j");
  ASSERT_NE(sync, std::string::npos);
  EXPECT_LT(copy, sync);
  EXPECT_LT(sync, read);
}

TEST(PlanBarriers, KLoopWaitsBeforeTheGemmAndBeforeOverwritingTheTiles) {
  ir::IRModule mod = testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((64, 128), "float32"), B: T.Tensor((128, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_s = T.alloc_shared((64, 32), "float32")
        B_s = T.alloc_shared((32, 64), "float32")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.clear(C_l)
        for k in T.Pipelined(4, num_stages=2):
            T.copy(A[0, k * 32], A_s)
            T.copy(B[k * 32, 0], B_s)
            T.gemm(A_s, B_s, C_l)
        T.copy(C_l, C)
)PY");
  const ir::Stmt& body = mod.functions().front()->body;
  EXPECT_EQ(testing::count_barriers(body), 2) << ir::print(mod);
  // Both inside the k loop: one before the copies (the previous gemm read the tiles),
  // one before the gemm (the copies wrote them).
  const ir::ForNode* k_loop = nullptr;
  ir::post_order_visit(body, [&](const ir::Stmt* s, const ir::Expr*) {
    if (auto* f = s ? s->as<ir::ForNode>() : nullptr; f && f->var.name() == "k") k_loop = f;
  });
  ASSERT_NE(k_loop, nullptr);
  EXPECT_EQ(testing::count_barriers(k_loop->body), 2);
  auto* seq = k_loop->body.as<ir::SeqNode>();
  ASSERT_NE(seq, nullptr);
  auto* first = seq->stmts.front().as<ir::EvaluateNode>();
  EXPECT_TRUE(first && ir::as_barrier(first->value)) << ir::print(mod);
}

TEST(PlanBarriers, CrossThreadTreeReduceWaitsBetweenItsSteps) {
  ir::IRModule mod = testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def rs(X: T.Tensor((32, 64), "float32"), Y: T.Tensor((32,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        X_l = T.alloc_fragment((32, 64), "float32")
        Y_l = T.alloc_fragment((32,), "float32")
        T.copy(X, X_l)
        T.reduce_sum(X_l, Y_l, dim=1)
        T.copy(Y_l, Y)
)PY");
  std::string text = ir::print(mod);
  // Staged through shared memory, then halved along the 64 columns in 6 steps.
  EXPECT_NE(text.find("X_l_red = T.alloc_shared((32, 64)"), std::string::npos) << text;
  EXPECT_NE(text.find("X_l_red[t0, t1] += X_l_red[t0, t1 + 32]"), std::string::npos) << text;
  EXPECT_NE(text.find("X_l_red[t0, t1] += X_l_red[t0, t1 + 1]"), std::string::npos) << text;
  // A barrier after the staging, between the steps and before every thread reads the
  // results: 1 + 5 + 1.
  EXPECT_EQ(testing::count_barriers(mod.functions().front()->body), 7) << text;
}

TEST(CooperativeCopy, SplitOverTheThreadsCoalescedAndMaskedAtTheEdges) {
  // The scalar split (vector_split_test.cc covers the vectorized one).
  ir::IRModule mod =
      testing::lower_for_simt(tile_kernel("A_tile[i, j]"), "cl_test -vector_bytes=0");
  std::string text = ir::print(mod);
  // Thread tid takes flat elements tid, tid + 128, ...: consecutive threads, consecutive
  // columns of the tile and of A.
  EXPECT_NE(text.find("for tid in T.thread_binding(128, thread=\"threadIdx.x\")"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("f = r * 128 + tid"), std::string::npos) << text;
  EXPECT_NE(text.find("i1 = f % 32"), std::string::npos) << text;
  // 100 x 70 in 32 x 32 tiles: reads outside A give zero, writes outside C are dropped.
  EXPECT_NE(text.find("< 100"), std::string::npos) << text;
  EXPECT_NE(text.find("< 70"), std::string::npos) << text;
  EXPECT_NE(text.find("bx * 32 + i1 < 70, A[by * 32 + i0, bx * 32 + i1], 0.0)"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace tilec

namespace tilec {
namespace {

TEST(PlanBarriers, ALetReadingWhatThreadZeroStoredWaits) {
  // Block-level `S[0] = ...` is thread 0's store; every thread's `v = S[0]` waits for it.
  ir::IRModule mod = testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((4,), "float32"), P: T.Tensor((4, 32), "float32")):
    with T.Kernel(4, threads=32) as bx:
        S = T.alloc_shared((1,), "float32")
        S[0] = A[bx]
        v = S[0]
        for i in T.Parallel(32):
            P[bx, i] = v
)PY");
  std::string text = ir::print(mod);
  EXPECT_EQ(testing::count_barriers(mod.functions().front()->body), 1) << text;
  size_t write = text.find("S[0] = A[bx]");
  size_t sync = text.find("tvm_storage_sync(\"shared\")");
  size_t read = text.find("v = S[0]");
  ASSERT_NE(sync, std::string::npos) << text;
  EXPECT_LT(write, sync) << text;
  EXPECT_LT(sync, read) << text;
}

}  // namespace
}  // namespace tilec
