// The cpu module's tile-op implementations (registered by the module, see
// cpu_module_environment.cc): chosen for targets with the "cpu" key only, the
// register-blocked gemm micro-kernel where shapes allow (else the generic nest), and
// serial scheduled loops. Lowered loops compute what the interpreter does (bit for bit
// with cpu.gemm_fma=false). The gemm's block shape depends on the target's vector unit,
// so tests that look at shapes name the CPU (-mcpu) rather than depend on this host.
#include "tilec/cpu/tile_ops.h"

#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/visitor.h"
#include "tilec/target/target_kind.h"
#include "tilec/transform/lower_tile_ops.h"
#include "tilec/transform/pass_context.h"

#include "ir_support.h"

#include <gtest/gtest.h>

#include <tuple>

namespace tilec::cpu {
namespace {

using namespace ir;
using test::count_kind;
using test::expect_same_results;
using transform::lower_tile_ops;
using transform::tile_op_impls_for;
using transform::TileOpKind;

const target::Target kCpu = target::Target::parse("c");
// AVX-512 (64-byte vectors, 32 registers) and AVX2 (32 bytes, 16 registers).
const target::Target kAvx512 = target::Target::parse("c -mcpu=skylake-avx512");
const target::Target kAvx2 = target::Target::parse("c -mcpu=haswell");

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
  // A kind without the `cpu` key (this binary links no GPU backend to own one).
  target::register_target_kind({"no_cpu_key_test", {}, {"no_cpu_key_test", "gpu"}, "test kind"});
  EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kGemm, kCpu)),
            (std::vector<std::string>{"cpu.gemm_register_blocked", "generic.gemm"}));
  EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kScheduledLoop, target::Target::parse("llvm"))),
            (std::vector<std::string>{"cpu.scheduled_loop_serial", "generic.scheduled_loop"}));
  EXPECT_EQ(names(tile_op_impls_for(TileOpKind::kGemm, target::Target::parse("no_cpu_key_test"))),
            std::vector<std::string>{"generic.gemm"});
  const char* source = R"(
import tilelang.language as T
@T.prim_func
def mm(A: T.Tensor((16, 5), "float32"), B: T.Tensor((5, 64), "float32"), C: T.Tensor((16, 64), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C)
)";
  IRModule mod = parse_kernel_source(source);
  EXPECT_GT(count_acc_tiles(lower_tile_ops(mod, kCpu), "mm"), 0);
  EXPECT_EQ(count_acc_tiles(lower_tile_ops(mod, target::Target::parse("no_cpu_key_test")), "mm"),
            0);
}

// A 5 x 7 C is smaller than any block: remainder blocks (fewer rows, a narrower vector)
// compute it, not the generic nest.
TEST(CpuTileOps, ShapesTheMicroKernelDoesNotDivideGetRemainderBlocks) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def odd(A: T.Tensor((5, 3), "float32"), B: T.Tensor((3, 7), "float32"), C: T.Tensor((5, 7), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, clear_accum=True)
)");
  IRModule lowered = lower_tile_ops(mod, kCpu);
  EXPECT_GT(count_acc_tiles(lowered, "odd"), 0);
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
  EXPECT_GE(acc_tiles, 2);  // both gemms use the register-blocked form
  EXPECT_EQ(count_kind(lowered.lookup("blocked")->body, StmtKind::kGemm), 0);
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
// once the lane loop (vectorized, around the k loop) is vectorized: each block fits the
// target's register file with one vector of B per group, A's broadcast and a spare, and
// the lane loop is at most one register wide (AVX-512: float64 8 lanes, float32 16;
// AVX2: 4 and 8).
TEST(CpuTileOps, RegisterBlockedGemmShapesFollowDtypeAndVectorUnit) {
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
  for (const auto& [cpu, registers, vector_bytes] :
       {std::tuple{kAvx512, 32, 64}, std::tuple{kAvx2, 16, 32}}) {
    SCOPED_TRACE(cpu.str());
    IRModule lowered = lower_tile_ops(mod, cpu);
    int blocks = 0, vectorized_with_k_inside = 0;
    post_order_visit(lowered.lookup("shapes")->body, [&](const Stmt* s, const Expr*) {
      auto* f = s ? s->as<ForNode>() : nullptr;
      if (!f || f->for_kind != ForKind::kVectorized) return;
      const AllocateNode* acc = f->body.as<AllocateNode>();
      if (!acc || acc->buffer->name != "acc") return;
      ++blocks;
      int64_t groups = *as_const_int(acc->buffer->shape[0]);
      int64_t rows = *as_const_int(acc->buffer->shape[1]);
      EXPECT_LE(rows * groups + groups + 1, registers - 1) << rows << " x " << groups;
      int64_t lanes = *as_const_int(f->end);
      EXPECT_LE(lanes * acc->buffer->dtype.bytes(), vector_bytes);
      bool has_loop = false;
      post_order_visit(f->body, [&](const Stmt* inner, const Expr*) {
        if (inner && inner->kind() == StmtKind::kFor) has_loop = true;
      });
      if (has_loop) ++vectorized_with_k_inside;
    });
    EXPECT_GE(blocks, 3);
    EXPECT_EQ(vectorized_with_k_inside, blocks);
    EXPECT_EQ(count_kind(lowered.lookup("shapes")->body, StmtKind::kGemm), 0);
    expect_same_results(mod, lowered);
  }
}

// The block shape comes from the vector unit: on AVX2 (16 registers of 8 floats) the model
// picks BLIS's Haswell shape, 6 rows x 2 vectors; on AVX-512 (32 registers of 16) 8 rows
// x 2 vectors, rows being bounded by the general registers that hold their addresses
// (gemm_blocking.cc), which divide a 64 x 64 tile without remainder blocks.
TEST(CpuTileOps, MicroKernelShapeComesFromTheVectorUnit) {
  DataType f32 = DataType::Float32();
  MicroKernelShape avx2 = choose_micro_kernel(vector_unit_for(kAvx2), f32, 64, 64);
  EXPECT_EQ(avx2.rows, 6);
  EXPECT_EQ(avx2.groups, 2);
  EXPECT_EQ(avx2.lanes, 8);
  MicroKernelShape avx512 = choose_micro_kernel(vector_unit_for(kAvx512), f32, 64, 64);
  EXPECT_EQ(avx512.lanes, 16);
  EXPECT_EQ(avx512.rows, 8);
  EXPECT_EQ(avx512.groups, 2);
  EXPECT_EQ(choose_micro_kernel(vector_unit_for(kAvx512), DataType::Float(64), 64, 64).lanes, 8);
  // 16-bit accumulators compute in float lanes.
  EXPECT_EQ(choose_micro_kernel(vector_unit_for(kAvx512), DataType::Float(16), 64, 64).lanes, 16);
  // A symbolic extent is estimated as large, never refused.
  MicroKernelShape symbolic =
      choose_micro_kernel(vector_unit_for(kAvx512), f32, std::nullopt, std::nullopt);
  EXPECT_EQ(symbolic.rows, 8);
  EXPECT_GE(symbolic.groups, 2);
  EXPECT_LE(symbolic.rows * symbolic.groups + symbolic.groups + 1, 31);
  // Explicit features override the CPU name; an unknown CPU gets the narrowest x86 vector.
  EXPECT_EQ(vector_unit_for(target::Target::parse("c -mcpu=haswell -mattr=+avx512f")).bytes, 64);
  EXPECT_EQ(vector_unit_for(target::Target::parse("c -mcpu=skylake-avx512 -mattr=-avx512f")).bytes,
            32);
  EXPECT_EQ(vector_unit_for(target::Target::parse("c -mcpu=some-future-cpu")).bytes, 16);
  // The pass-config keys fix the shape.
  transform::ScopedPassContext fixed(transform::PassContext(
      {{kGemmMicroRowsConfigKey, int64_t(3)}, {kGemmMicroGroupsConfigKey, int64_t(1)}}));
  MicroKernelShape chosen = micro_kernel_for(kAvx512, f32, 64, 64);
  EXPECT_EQ(chosen.rows, 3);
  EXPECT_EQ(chosen.groups, 1);
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
  EXPECT_GE(acc_tiles, 3);
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

// Bit-exact (checksums of the raw bytes) with fused multiply-add off; with it on, within
// the per-dtype tolerances (expect_same_results).
void expect_exact_and_close(const IRModule& mod, const target::Target& target,
                            const std::map<std::string, int64_t>& values,
                            transform::PassConfig config = {}) {
  {
    transform::ScopedPassContext scope{transform::PassContext(config)};
    expect_same_results(mod, lower_tile_ops(mod, target), values);
  }
  config[kGemmFmaConfigKey] = false;
  transform::ScopedPassContext exact{transform::PassContext(config)};
  IRModule lowered = lower_tile_ops(mod, target);
  for (const auto& f : mod.functions()) {
    EXPECT_EQ(count_kind(lowered.lookup(f->name)->body, StmtKind::kGemm), 0);
    RandomArgs expected = make_random_args(f, values, 3);
    RandomArgs actual = make_random_args(lowered.lookup(f->name), values, 3);
    interpret(f, expected.args);
    interpret(lowered.lookup(f->name), actual.args);
    for (size_t t = 0; t < expected.tensors.size(); ++t)
      EXPECT_EQ(tensor_checksum(actual.tensors[t].view()),
                tensor_checksum(expected.tensors[t].view()))
          << f->name << " tensor #" << t;
  }
}

// Every kind of remainder block at once, with a 3-row x 2-vector block on AVX-512 (16
// float32 lanes): M = 7 leaves one row, N = 50 leaves one whole vector and 2 lanes, N = 40
// 8 lanes; operands transposed, 16-bit inputs packed into float32 panels at those edges,
// and float16, bfloat16, float64 and int32 accumulators.
TEST(CpuTileOps, RemainderBlocksInEveryDtypeMatchTheInterpreter) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def f32(A: T.Tensor((7, 9), "float32"), B: T.Tensor((9, 50), "float32"), C: T.Tensor((7, 50), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C)
@T.prim_func
def nt(A: T.Tensor((9, 7), "float32"), B: T.Tensor((40, 9), "float32"), C: T.Tensor((7, 40), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, transpose_A=True, transpose_B=True, clear_accum=True)
@T.prim_func
def f16in(A: T.Tensor((7, 9), "float16"), B: T.Tensor((50, 9), "float16"), C: T.Tensor((7, 50), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, transpose_B=True)
@T.prim_func
def bf16in(A: T.Tensor((9, 7), "bfloat16"), B: T.Tensor((9, 40), "bfloat16"), C: T.Tensor((7, 40), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, transpose_A=True)
@T.prim_func
def f16acc(A: T.Tensor((7, 9), "float16"), B: T.Tensor((9, 50), "float16"), C: T.Tensor((7, 50), "float16")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C)
@T.prim_func
def f64(A: T.Tensor((7, 9), "float64"), B: T.Tensor((9, 21), "float64"), C: T.Tensor((7, 21), "float64")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C)
@T.prim_func
def i32(A: T.Tensor((7, 9), "int8"), B: T.Tensor((9, 50), "int8"), C: T.Tensor((7, 50), "int32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C)
)");
  expect_exact_and_close(
      mod, kAvx512, {},
      {{kGemmMicroRowsConfigKey, int64_t(3)}, {kGemmMicroGroupsConfigKey, int64_t(2)}});
  // The shapes the target itself derives, on both vector units.
  expect_exact_and_close(mod, kAvx512, {});
  expect_exact_and_close(mod, kAvx2, {});
}

// The packed panels (a transposed B turned into k x columns; 16-bit inputs converted)
// hold exactly the tile at its edges: a panel row or column the block does not fill is
// never read. The lowered IR names them.
TEST(CpuTileOps, PackedPanelsAtEdgesAreVisibleAndExact) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def packed(A: T.Tensor((20, 13), "float16"), B: T.Tensor((37, 13), "float16"), C: T.Tensor((20, 37), "float32")):
    with T.Kernel(1, threads=32) as bx:
        A_shared = T.alloc_shared((20, 13), "float16")
        B_shared = T.alloc_shared((37, 13), "float16")
        T.copy(A, A_shared)
        T.copy(B, B_shared)
        T.gemm(A_shared, B_shared, C, transpose_B=True, clear_accum=True)
)");
  IRModule lowered = lower_tile_ops(mod, kAvx512);
  std::map<std::string, std::vector<int64_t>> panels;
  post_order_visit(lowered.lookup("packed")->body, [&](const Stmt* s, const Expr*) {
    auto* a = s ? s->as<AllocateNode>() : nullptr;
    if (!a || a->buffer->name.find("_panel") == std::string::npos) return;
    EXPECT_EQ(a->buffer->dtype, DataType::Float32());
    for (const auto& d : a->buffer->shape) panels[a->buffer->name].push_back(*as_const_int(d));
  });
  EXPECT_EQ(panels["a_panel"], (std::vector<int64_t>{20, 13}));  // rows x k, converted
  EXPECT_EQ(panels["b_panel"], (std::vector<int64_t>{13, 37}));  // k x columns, turned
  expect_exact_and_close(mod, kAvx512, {});
}

// A gemm over whole tensors of symbolic M, N and K: full blocks in loops of run-time
// trip counts, the rows left as blocks of their binary digits, whole vectors and the
// lanes left of the columns, and K in L1-sized chunks (K = 200 crosses one on every
// cache size up to 96 KiB L1); 16-bit inputs packed chunk by chunk.
TEST(CpuTileOps, SymbolicShapeGemmUsesBlocksNotTheLoopNest) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
M = T.symbolic("M")
N = T.symbolic("N")
K = T.symbolic("K")
@T.prim_func
def sym(A: T.Tensor((M, K), "float32"), B: T.Tensor((K, N), "float32"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, clear_accum=True)
@T.prim_func
def sym_half(A: T.Tensor((K, M), "float16"), B: T.Tensor((N, K), "float16"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, transpose_A=True, transpose_B=True)
)");
  IRModule lowered = lower_tile_ops(mod, kAvx512);
  for (const char* name : {"sym", "sym_half"}) {
    EXPECT_GT(count_acc_tiles(lowered, name), 1) << name;
    bool rows_left = false, cols_left = false;
    post_order_visit(lowered.lookup(name)->body, [&](const Stmt* s, const Expr*) {
      if (auto* l = s ? s->as<LetNode>() : nullptr) {
        rows_left = rows_left || l->var.name() == "rows_left";
        cols_left = cols_left || l->var.name() == "cols_left";
      }
    });
    EXPECT_TRUE(rows_left && cols_left) << name;
  }
  for (const auto& values :
       std::vector<std::map<std::string, int64_t>>{{{"M", 1}, {"N", 1}, {"K", 1}},
                                                   {{"M", 31}, {"N", 50}, {"K", 3}},
                                                   {{"M", 15}, {"N", 17}, {"K", 200}},
                                                   {{"M", 2}, {"N", 3}, {"K", 0}}}) {
    SCOPED_TRACE(values.at("M"));
    expect_exact_and_close(mod, kAvx512, values);
  }
  expect_exact_and_close(mod, kAvx2, {{"M", 29}, {"N", 23}, {"K", 5}});
}

}  // namespace
}  // namespace tilec::cpu
