// lower_tile_ops: no tile operation survives, loops carry the right kinds, and the
// lowered function computes what the original does (checked with the interpreter,
// which runs both tile operations and plain loops).
#include "tilec/transform/lower_tile_ops.h"

#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/visitor.h"

#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using namespace ir;

int count_kind(const Stmt& s, StmtKind kind) {
  int n = 0;
  post_order_visit(s, [&](const Stmt* node, const Expr*) {
    if (node && node->kind() == kind) ++n;
  });
  return n;
}

// Runs the original and the lowered function on the same random inputs.
void expect_same_results(const IRModule& mod, const IRModule& lowered,
                         const std::map<std::string, int64_t>& values = {}) {
  for (const auto& f : mod.functions()) {
    RandomArgs expected = make_random_args(f, values, 11);
    RandomArgs actual = make_random_args(lowered.lookup(f->name), values, 11);
    interpret(f, expected.args);
    interpret(lowered.lookup(f->name), actual.args);
    for (size_t t = 0; t < expected.tensors.size(); ++t) {
      CompareResult r = compare_tensors(actual.tensors[t].view(), expected.tensors[t].view());
      EXPECT_TRUE(r.ok) << f->name << " tensor #" << t << ": " << r.first_mismatch;
    }
  }
}

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
  IRModule lowered = lower_tile_ops(mod);
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
  IRModule lowered = lower_tile_ops(mod);
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
  IRModule lowered = lower_tile_ops(mod);
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
  IRModule lowered = lower_tile_ops(mod);
  EXPECT_EQ(count_kind(lowered.lookup("red")->body, StmtKind::kReduce), 0);
  EXPECT_EQ(count_kind(lowered.lookup("red")->body, StmtKind::kFill), 0);
  expect_same_results(mod, lowered);
}

TEST(LowerTileOps, PipelinedLoopsBecomeSerial) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def p(A: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        for k in T.Pipelined(8, num_stages=2):
            A[k] = A[k] * 2.0
)");
  IRModule lowered = lower_tile_ops(mod);
  const ForNode* loop = nullptr;
  post_order_visit(lowered.lookup("p")->body, [&](const Stmt* s, const Expr*) {
    if (s && s->kind() == StmtKind::kFor) loop = s->as<ForNode>();
  });
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->for_kind, ForKind::kSerial);
  EXPECT_EQ(loop->num_stages, 0);
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
    lower_tile_ops(mod);
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("in function 'bad'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("extent"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilec::transform

namespace tilec::transform {
namespace {

TEST(LowerTileOps, RegisterBlockedGemmMatchesInterpreter) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def blocked(A: T.Tensor((16, 5), "float32"), B: T.Tensor((5, 64), "float32"), C: T.Tensor((16, 64), "float32"),
            D: T.Tensor((5, 8), "float16"), E: T.Tensor((8, 32), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, clear_accum=True)
        T.gemm(D, B[0:5, 0:32], E, transpose_A=True)
)");
  IRModule lowered = lower_tile_ops(mod);
  int acc_tiles = 0;
  post_order_visit(lowered.lookup("blocked")->body, [&](const Stmt* s, const Expr*) {
    if (s && s->kind() == StmtKind::kAllocate && s->as<AllocateNode>()->buffer->name == "acc")
      ++acc_tiles;
  });
  EXPECT_EQ(acc_tiles, 2);  // both gemms use the register-blocked form
  expect_same_results(mod, lowered);
}

// The micro-kernel's accumulator is groups x rows, one element per vector register
// once the lane loop (vectorized, around the k loop) is vectorized; float64 has 8
// lanes per 64 bytes, float32 16.
TEST(LowerTileOps, RegisterBlockedGemmShapesFollowDtypeAndExtents) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def shapes(A: T.Tensor((6, 3), "float64"), B: T.Tensor((3, 8), "float64"), C: T.Tensor((6, 8), "float64"),
           D: T.Tensor((4, 7), "float32"), E: T.Tensor((7, 48), "float32"), F: T.Tensor((4, 48), "float32"),
           G: T.Tensor((16, 7), "float32"), H: T.Tensor((7, 64), "float32"), P: T.Tensor((16, 64), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C)
        T.gemm(D, E, F, clear_accum=True)
        T.gemm(G, H, P)
)");
  IRModule lowered = lower_tile_ops(mod);
  std::vector<std::pair<int64_t, int64_t>> acc_shapes;
  int vectorized_with_k_inside = 0;
  post_order_visit(lowered.lookup("shapes")->body, [&](const Stmt* s, const Expr*) {
    if (!s) return;
    if (auto* a = s->as<AllocateNode>(); a && a->buffer->name == "acc") {
      acc_shapes.emplace_back(*as_const_int(a->buffer->shape[0]),
                              *as_const_int(a->buffer->shape[1]));
    }
    if (auto* f = s->as<ForNode>(); f && f->for_kind == ForKind::kVectorized) {
      bool has_loop = false;
      post_order_visit(f->body, [&](const Stmt* inner, const Expr*) {
        if (inner && inner->kind() == StmtKind::kFor) has_loop = true;
      });
      if (has_loop) ++vectorized_with_k_inside;
    }
  });
  // Statements are visited children first, so the order is the gemms' order.
  std::vector<std::pair<int64_t, int64_t>> expected = {{1, 2}, {1, 4}, {2, 8}};
  EXPECT_EQ(acc_shapes, expected);
  EXPECT_EQ(vectorized_with_k_inside, 3);
  expect_same_results(mod, lowered);
}

// Transposed B goes through the micro-kernel too, via a local K x N panel copied from
// the N x K tile; with transpose_A as well the A operand is only indexed the other
// way. Every C element still sums k ascending in C's dtype, so the lowered loops give
// the interpreter's results bit for bit (checksums of the raw bytes, not tolerances).
TEST(LowerTileOps, RegisterBlockedGemmWithTransposedBIsBitExact) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def tb(A: T.Tensor((16, 37), "float32"), B: T.Tensor((64, 37), "float32"), C: T.Tensor((16, 64), "float32"),
       D: T.Tensor((37, 24), "float32"), E: T.Tensor((24, 32), "float32"),
       H: T.Tensor((32, 37), "float16"), F: T.Tensor((16, 32), "float32")):
    with T.Kernel(1, threads=32) as bx:
        S = T.alloc_shared((64, 37), "float32")
        T.copy(B, S)
        T.gemm(A, S, C, transpose_B=True, clear_accum=True)
        T.gemm(D, B[16:48, 0:37], E, transpose_A=True, transpose_B=True)
        T.gemm(A, H, F, transpose_B=True)
)");
  IRModule lowered = lower_tile_ops(mod);
  int acc_tiles = 0, panels = 0;
  post_order_visit(lowered.lookup("tb")->body, [&](const Stmt* s, const Expr*) {
    if (auto* a = s ? s->as<AllocateNode>() : nullptr) {
      if (a->buffer->name == "acc") ++acc_tiles;
      if (a->buffer->name == "b_panel") {
        ++panels;
        EXPECT_EQ(*as_const_int(a->buffer->shape[0]), 37);  // K x N
      }
    }
  });
  EXPECT_EQ(acc_tiles, 3);
  EXPECT_EQ(panels, 3);
  EXPECT_EQ(count_kind(lowered.lookup("tb")->body, StmtKind::kGemm), 0);
  const PrimFunc& f = mod.lookup("tb");
  RandomArgs expected = make_random_args(f, {}, 5);
  RandomArgs actual = make_random_args(lowered.lookup("tb"), {}, 5);
  interpret(f, expected.args);
  interpret(lowered.lookup("tb"), actual.args);
  ASSERT_EQ(expected.tensors.size(), actual.tensors.size());
  for (size_t t = 0; t < expected.tensors.size(); ++t) {
    EXPECT_EQ(tensor_checksum(actual.tensors[t].view()),
              tensor_checksum(expected.tensors[t].view()))
        << "tensor #" << t;
  }
}

}  // namespace
}  // namespace tilec::transform
