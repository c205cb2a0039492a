// lower_tile_ops: no tile operation survives, loops carry the right kinds, and the
// lowered function computes what the original does (checked with the interpreter,
// which runs both tile operations and plain loops).
#include "tilec/transform/lower_tile_ops.h"

#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/visitor.h"

#include "ir_support.h"

#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using namespace ir;
using test::count_kind;
using test::expect_same_results;

// Only the generic implementations are registered in this binary (tests/cpu covers the
// cpu module's own).
const target::Target kTarget = target::Target::parse("c");

const char* kEdgeCopy = R"(
import tilelang.language as T
@T.prim_func
def edge(A: T.Tensor((10, 7), "float32"), B: T.Tensor((10, 7), "float16")):
    with T.Kernel(2, 3, threads=32) as (bx, by):
        S = T.alloc_shared((4, 4), "float32")
        T.copy(A[by * 4, bx * 4], S)
        T.copy(S, B[by * 4, bx * 4])
)";

TEST(LowerTileOps, CopyWithEdgeMaskingMatchesInterpreter) {
  IRModule mod = parse_kernel_source(kEdgeCopy);
  IRModule lowered = lower_tile_ops(mod, kTarget);
  const Stmt& body = lowered.lookup("edge")->body;
  EXPECT_EQ(count_kind(body, StmtKind::kCopy), 0);
  EXPECT_EQ(count_kind(body, StmtKind::kIf), 1);  // the write to B is masked
  EXPECT_EQ(count_kind(body, StmtKind::kFor), 4);
  expect_same_results(mod, lowered);
}

const char* kGemm = R"(
import tilelang.language as T
@T.prim_func
def mm(A: T.Tensor((8, 6), "float16"), B: T.Tensor((5, 6), "float16"), C: T.Tensor((8, 5), "float32"),
       D: T.Tensor((6, 8), "float32"), E: T.Tensor((6, 5), "float32"), F: T.Tensor((8, 5), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, transpose_B=True, clear_accum=True)
        T.gemm(D, E, F, transpose_A=True)
)";

TEST(LowerTileOps, GemmWithTransposesAndClearMatchesInterpreter) {
  IRModule mod = parse_kernel_source(kGemm);
  IRModule lowered = lower_tile_ops(mod, kTarget);
  EXPECT_EQ(count_kind(lowered.lookup("mm")->body, StmtKind::kGemm), 0);
  expect_same_results(mod, lowered);
}

TEST(LowerTileOps, GemmInnermostLoopRunsOverN) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def mm(A: T.Tensor((4, 3), "float32"), B: T.Tensor((3, 8), "float32"), C: T.Tensor((4, 8), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C)
)");
  IRModule lowered = lower_tile_ops(mod, kTarget);
  std::vector<const ForNode*> loops;
  post_order_visit(lowered.lookup("mm")->body, [&](const Stmt* s, const Expr*) {
    if (s && s->kind() == StmtKind::kFor) loops.push_back(s->as<ForNode>());
  });
  ASSERT_EQ(loops.size(), 3u);
  // post order: innermost first
  EXPECT_EQ(loops[0]->var.name(), "n");
  EXPECT_EQ(loops[0]->for_kind, ForKind::kParallel);
  EXPECT_EQ(loops[1]->var.name(), "k");
  EXPECT_EQ(loops[1]->for_kind, ForKind::kSerial);
  EXPECT_EQ(loops[2]->var.name(), "m");
  expect_same_results(mod, lowered);
}

TEST(LowerTileOps, ReductionsAndFillMatchInterpreter) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def red(A: T.Tensor((6, 9), "float32"), S: T.Tensor((6,), "float32"), M: T.Tensor((9,), "float32"),
        N: T.Tensor((6,), "float32"), X: T.Tensor((9,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.reduce_sum(A, S, dim=1)
        T.reduce_max(A, M, dim=0)
        T.fill(N, 1.5)
        T.reduce_abssum(A, N, dim=1, clear=False)
        T.reduce_absmax(A, X, dim=0)
)");
  IRModule lowered = lower_tile_ops(mod, kTarget);
  EXPECT_EQ(count_kind(lowered.lookup("red")->body, StmtKind::kReduce), 0);
  EXPECT_EQ(count_kind(lowered.lookup("red")->body, StmtKind::kFill), 0);
  expect_same_results(mod, lowered);
}

TEST(LowerTileOps, GenericLoweringKeepsScheduledLoopsForTheCodegen) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def p(A: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        for k in T.Pipelined(8, num_stages=2):
            A[k] = A[k] * 2.0
)");
  IRModule lowered = lower_tile_ops(mod, kTarget);
  const ForNode* loop = nullptr;
  post_order_visit(lowered.lookup("p")->body, [&](const Stmt* s, const Expr*) {
    if (s && s->kind() == StmtKind::kFor) loop = s->as<ForNode>();
  });
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->for_kind, ForKind::kPipelined);
  EXPECT_EQ(loop->num_stages, 2);
}

TEST(LowerTileOps, MismatchedCopyExtentsAreAClearError) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def bad(A: T.Tensor((8, 8), "float32")):
    with T.Kernel(1, threads=32) as bx:
        S = T.alloc_shared((4, 4), "float32")
        T.copy(A[0:4, 0:2], S)
)");
  try {
    lower_tile_ops(mod, kTarget);
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("in function 'bad'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("extent"), std::string::npos) << e.what();
  }
}

TEST(LowerTileOps, GenericGemmIsAPlainNestWhateverTheShape) {
  // The register-blocked micro-kernel is the cpu module's (tests/cpu/tile_ops_test.cc).
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def blocked(A: T.Tensor((16, 5), "float32"), B: T.Tensor((5, 64), "float32"), C: T.Tensor((16, 64), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, clear_accum=True)
)");
  IRModule lowered = lower_tile_ops(mod, kTarget);
  EXPECT_EQ(count_kind(lowered.lookup("blocked")->body, StmtKind::kAllocate), 0);
  EXPECT_EQ(count_kind(lowered.lookup("blocked")->body, StmtKind::kFor), 5);  // clear 2 + mkn 3
  expect_same_results(mod, lowered);
}

}  // namespace
}  // namespace tilec::transform
