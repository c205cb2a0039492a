// The cpu module's tile-op implementations (registered by the module, see
// cpu_module_environment.cc): chosen for targets with the "cpu" key only, the
// register-blocked gemm micro-kernel where shapes allow (else the generic nest), and
// serial scheduled loops. Lowered loops compute what the interpreter does, bit for bit.
#include "tilec/cpu/tile_ops.h"

#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/lower_tile_ops.h"
#include "tilec/transform/pass_context.h"

#include <gtest/gtest.h>

namespace tilec::cpu {
namespace {

using namespace ir;
using transform::lower_tile_ops;
using transform::tile_op_impls_for;
using transform::TileOpKind;

const target::Target kCpu = target::Target::parse("c");

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

std::vector<std::string> names(const std::vector<transform::TileOpImplPtr>& impls) {
  std::vector<std::string> out;
  for (const auto& impl : impls) out.push_back(impl->name);
  return out;
}

int count_acc_tiles(const IRModule& mod, const std::string& function) {
  int n = 0;
  post_order_visit(mod.lookup(function)->body, [&](const Stmt* s, const Expr*) {
    if (s && s->kind() == StmtKind::kAllocate && s->as<AllocateNode>()->buffer->name == "acc") ++n;
  });
  return n;
}

TEST(CpuTileOps, ChosenForTargetsWithTheCpuKeyOnly) {
  EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kGemm, kCpu)),
            (std::vector<std::string>{"cpu.gemm_register_blocked", "generic.gemm"}));
  EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kScheduledLoop, target::Target::parse("llvm"))),
            (std::vector<std::string>{"cpu.scheduled_loop_serial", "generic.scheduled_loop"}));
  EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kGemm, target::Target::parse("metal"))),
            std::vector<std::string>{"generic.gemm"});
  const char* source = R"(
import tilelang.language as T
@T.prim_func
def mm(A: T.Tensor((16, 5), "float32"), B: T.Tensor((5, 64), "float32"), C: T.Tensor((16, 64), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C)
)";
  IRModule mod = parse_kernel_source(source);
  EXPECT_EQ(count_acc_tiles(lower_tile_ops(mod, kCpu), "mm"), 1);
  EXPECT_EQ(count_acc_tiles(lower_tile_ops(mod, target::Target::parse("metal")), "mm"), 0);
}

TEST(CpuTileOps, ShapesTheMicroKernelCannotBlockFallBackToTheGenericNest) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def odd(A: T.Tensor((5, 3), "float32"), B: T.Tensor((3, 7), "float32"), C: T.Tensor((5, 7), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, clear_accum=True)
)");
  IRModule lowered = lower_tile_ops(mod, kCpu);
  EXPECT_EQ(count_acc_tiles(lowered, "odd"), 0);
  EXPECT_EQ(count_kind(lowered.lookup("odd")->body, StmtKind::kGemm), 0);
  expect_same_results(mod, lowered);
}

TEST(CpuTileOps, PipelinedLoopsBecomeSerial) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def p(A: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        for k in T.Pipelined(8, num_stages=2):
            A[k] = A[k] * 2.0
)");
  IRModule lowered = lower_tile_ops(mod, kCpu);
  const ForNode* loop = nullptr;
  post_order_visit(lowered.lookup("p")->body, [&](const Stmt* s, const Expr*) {
    if (s && s->kind() == StmtKind::kFor) loop = s->as<ForNode>();
  });
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->for_kind, ForKind::kSerial);
  EXPECT_EQ(loop->num_stages, 0);
}

TEST(CpuTileOps, RegisterBlockedGemmMatchesInterpreter) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def blocked(A: T.Tensor((16, 5), "float32"), B: T.Tensor((5, 64), "float32"), C: T.Tensor((16, 64), "float32"),
            D: T.Tensor((5, 8), "float16"), E: T.Tensor((8, 32), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, clear_accum=True)
        T.gemm(D, B[0:5, 0:32], E, transpose_A=True)
)");
  IRModule lowered = lower_tile_ops(mod, kCpu);
  int acc_tiles = 0;
  post_order_visit(lowered.lookup("blocked")->body, [&](const Stmt* s, const Expr*) {
    if (s && s->kind() == StmtKind::kAllocate && s->as<AllocateNode>()->buffer->name == "acc")
      ++acc_tiles;
  });
  EXPECT_EQ(acc_tiles, 2);  // both gemms use the register-blocked form
  expect_same_results(mod, lowered);
}

// By default the micro-kernel accumulates with fma (within the tolerances, as above);
// with cpu.gemm_fma=false it has no fma and keeps the multiply and add apart.
TEST(CpuTileOps, RegisterBlockedGemmFusesMultiplyAddUnlessTurnedOff) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def fused(A: T.Tensor((16, 5), "float32"), B: T.Tensor((5, 64), "float32"), C: T.Tensor((16, 64), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C)
)");
  auto count_fma = [](const IRModule& m) {
    int n = 0;
    post_order_visit(m.lookup("fused")->body, [&](const Stmt*, const Expr* e) {
      if (auto* c = e ? e->as<CallNode>() : nullptr; c && c->name == "fma") ++n;
    });
    return n;
  };
  IRModule lowered = lower_tile_ops(mod, kCpu);
  EXPECT_GT(count_fma(lowered), 0);
  expect_same_results(mod, lowered);
  transform::ScopedPassContext exact(transform::PassContext({{kGemmFmaConfigKey, false}}));
  EXPECT_EQ(count_fma(lower_tile_ops(mod, kCpu)), 0);
}

// The micro-kernel's accumulator is groups x rows, one element per vector register
// once the lane loop (vectorized, around the k loop) is vectorized; float64 has 8
// lanes per 64 bytes, float32 16.
TEST(CpuTileOps, RegisterBlockedGemmShapesFollowDtypeAndExtents) {
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
  IRModule lowered = lower_tile_ops(mod, kCpu);
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
TEST(CpuTileOps, RegisterBlockedGemmWithTransposedBIsBitExact) {
  // Fused multiply-add rounds once per step; bit-exactness asks for it to be off.
  transform::ScopedPassContext exact(transform::PassContext({{kGemmFmaConfigKey, false}}));
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
  IRModule lowered = lower_tile_ops(mod, kCpu);
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
}  // namespace tilec::cpu
