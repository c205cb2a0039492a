// Fragment layouts as index expressions: every factory's forward map (element -> thread,
// register) and inverse (thread, register -> element) agree on every element, reshaping
// across unit dimensions keeps the mapping, the SIMT gemm's micro-tile split, and the
// located error when one T.Parallel nest would need two layouts.
#include "simt_support.h"

#include "tilec/gpu/fragment_layout.h"
#include "tilec/gpu/simt_gemm.h"

#include <fmt/format.h>

#include <array>

namespace tilec {
namespace {

TEST(LayoutAlgebra, FactoriesAreBijectionsOntoTheirRegisters) {
  EXPECT_EQ(gpu::check_layout(gpu::cyclic_layout({16, 128}, 128)), "");
  EXPECT_EQ(gpu::check_layout(gpu::cyclic_layout({7, 9}, 32)), "");  // last registers partial
  EXPECT_EQ(gpu::check_layout(gpu::replicated_layout({5, 3}, 64)), "");
  for (auto [m, n, t] : std::vector<std::array<int64_t, 3>>{
           {64, 64, 128}, {32, 32, 64}, {16, 16, 128}, {128, 64, 256}, {8, 64, 32}}) {
    SCOPED_TRACE(fmt::format("{}x{} over {}", m, n, t));
    auto tile = gpu::choose_micro_tile(m, n, t);
    ASSERT_TRUE(tile);
    EXPECT_EQ(tile->tm * tile->tn, t);
    EXPECT_EQ(tile->TM * tile->tm, m);
    EXPECT_EQ(tile->TN * tile->tn, n);
    gpu::FragmentLayout l = gpu::micro_tile_layout(m, n, *tile);
    EXPECT_EQ(l.registers, m * n / t);
    EXPECT_EQ(gpu::check_layout(l), "");
  }
}

TEST(LayoutAlgebra, MicroTileSplitPrefersFewLoadsAndVectorsOfColumns) {
  auto tile = gpu::choose_micro_tile(64, 64, 128);
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->tm, 8);
  EXPECT_EQ(tile->tn, 16);
  EXPECT_EQ(tile->TM, 8);
  EXPECT_EQ(tile->TN, 4);
  gpu::FragmentLayout l = gpu::micro_tile_layout(64, 64, *tile);
  // A thread holds 4 consecutive columns (one vector), neighbouring threads the next 4.
  EXPECT_EQ(l.thread_at({0, 0}), 0);
  EXPECT_EQ(l.thread_at({0, 3}), 0);
  EXPECT_EQ(l.thread_at({0, 4}), 1);
  EXPECT_EQ(l.thread_at({1, 0}), 16);
  EXPECT_EQ(l.register_at({0, 1}), 1);
  EXPECT_EQ(l.register_at({0, 4}), 0);
  EXPECT_EQ(l.register_at({8, 0}), 4);
  EXPECT_EQ(l.element_at(17, 5), (std::vector<int64_t>{8 + 1, 4 + 1}));
  // No split: the thread count has no factorisation dividing the tile, or too few elements.
  EXPECT_FALSE(gpu::choose_micro_tile(16, 32, 96));
  EXPECT_FALSE(gpu::choose_micro_tile(8, 8, 128));
}

TEST(LayoutAlgebra, ReshapingAcrossUnitDimensionsKeepsTheMapping) {
  gpu::FragmentLayout l = gpu::micro_tile_layout(32, 64, *gpu::choose_micro_tile(32, 64, 64));
  auto r = l.reshaped({32, 1, 64});
  ASSERT_TRUE(r);
  EXPECT_EQ(gpu::check_layout(*r), "");
  for (int64_t i : {0, 5, 31}) {
    for (int64_t j : {0, 17, 63}) {
      EXPECT_EQ(r->thread_at({i, 0, j}), l.thread_at({i, j}));
      EXPECT_EQ(r->register_at({i, 0, j}), l.register_at({i, j}));
    }
  }
  EXPECT_TRUE(r->reshaped({32, 64})->same_mapping(l));
  EXPECT_FALSE(l.reshaped({64, 32}));
  EXPECT_FALSE(l.reshaped({32, 64, 2}));
}

TEST(LayoutAlgebra, ACheckNamesTheFirstElementThatDoesNotMapBack) {
  gpu::FragmentLayout bad = gpu::make_layout("broken", {4, 4}, 4, 4, [](gpu::FragmentLayout& l) {
    l.thread_of = ir::floormod(l.index_vars[0], ir::make_int(4));
    l.register_of = ir::floormod(l.index_vars[0], ir::make_int(4));  // ignores j
    l.element_of = {l.thread_var, l.register_var};
  });
  std::string why = gpu::check_layout(bad);
  EXPECT_NE(why.find("element (0, 1) maps to thread 0, register 0, which another element has"),
            std::string::npos)
      << why;
}

const char* kTwoAccumulators = R"PY(
import tilelang.language as T

@T.prim_func
def two(A: T.Tensor((32, 32), "float32"), C: T.Tensor((32, 32), "float32")):
    with T.Kernel(1, threads=64) as bx:
        X = T.alloc_fragment((32, 32), "float32")
        Y = T.alloc_fragment((32, 32), "float32")
        T.copy(A, X)
        T.copy(A, Y)
        for i, j in T.Parallel(32, 32):
            C[i, j] = X[i, j] + Y[i, j]
)PY";

TEST(LayoutInference, ANestNeedingTwoLayoutsIsALocatedError) {
  ir::IRModule mod = ir::parse_kernel_source(kTwoAccumulators);
  const ir::KernelNode* kernel = nullptr;
  ir::post_order_visit(mod.functions().front()->body, [&](const ir::Stmt* s, const ir::Expr*) {
    if (s && s->kind() == ir::StmtKind::kKernel) kernel = s->as<ir::KernelNode>();
  });
  ASSERT_NE(kernel, nullptr);
  std::map<std::string, const ir::BufferNode*> fragments;
  ir::post_order_visit(kernel->body, [&](const ir::Stmt* s, const ir::Expr*) {
    if (auto* a = s ? s->as<ir::AllocateNode>() : nullptr)
      fragments[a->buffer->name] = a->buffer.get();
  });
  gpu::LayoutRequirements required;
  required[fragments.at("X")] = {gpu::micro_tile_layout(32, 32, {8, 8, 4, 4}), "gemm one"};
  required[fragments.at("Y")] = {gpu::cyclic_layout({32, 32}, 64), "gemm two"};
  try {
    gpu::infer_fragment_layouts(*kernel, 64, "two", required);
    FAIL() << "expected an error";
  } catch (const ir::IRError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("kernel 'two'"), std::string::npos) << what;
    EXPECT_NE(what.find("the T.Parallel at line 11 splits fragments"), std::string::npos) << what;
    EXPECT_NE(what.find("(gemm one)"), std::string::npos) << what;
    EXPECT_NE(what.find("(gemm two)"), std::string::npos) << what;
    EXPECT_NE(what.find("Copy one of them into a shared tile"), std::string::npos) << what;
  }
  // With one requirement, the other fragment follows it through the nest.
  required.erase(fragments.at("Y"));
  gpu::FragmentLayouts layouts = gpu::infer_fragment_layouts(*kernel, 64, "two", required);
  EXPECT_TRUE(layouts.at(fragments.at("Y")).same_mapping(layouts.at(fragments.at("X"))));
  EXPECT_NE(
      layouts.at(fragments.at("Y")).reason.find("follows 'X' through the T.Parallel at line 11"),
      std::string::npos);
}

}  // namespace
}  // namespace tilec
