// T.use_swizzle remaps which tile each launched block computes, as TileLang's
// tl::rasterization2DRow/Column: the interpreter runs blocks in launch order (x fastest),
// so a kernel that records an atomic counter per tile shows the order; the lowered IR
// names the launch indices on the CPU and OpenCL targets; bad arguments are located errors.
// (That results do not change is tilelang_constructs_test's SwizzleRowGemm and
// SwizzleColumnThreeDimensionalGrid on every CPU backend, and examples/gemm_swizzle.py.)
#include "test_support.h"

#include "tilec/exec/execution_backend.h"
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/source_error.h"
#include "tilec/target/target_kind.h"

namespace tilec {
namespace {

std::string order_kernel(int gx, int gy, const std::string& swizzle) {
  return fmt::format(R"(import tilelang.language as T

@T.prim_func
def order(Counter: T.Tensor((1,), "int32"), Order: T.Tensor(({1}, {0}), "int32")):
    with T.Kernel({0}, {1}) as (bx, by):
        {2}
        Order[by, bx] = T.atomic_add(Counter[0], 1)
)",
                     gx, gy, swizzle);
}

// Order[by][bx] = the launch index of the block that computed tile (bx, by).
std::vector<std::vector<int>> launch_order(const std::string& source, int gx, int gy) {
  ir::IRModule mod = ir::parse_kernel_source(source, {.filename = "order.py", .defines = {}});
  ir::HostTensor counter(ir::DataType::Int32(), {1});
  ir::HostTensor order(ir::DataType::Int32(), {gy, gx});
  ir::interpret(mod.functions()[0], {counter.view(), order.view()});
  std::vector<std::vector<int>> rows(static_cast<size_t>(gy),
                                     std::vector<int>(static_cast<size_t>(gx)));
  for (int y = 0; y < gy; ++y)
    for (int x = 0; x < gx; ++x) rows[size_t(y)][size_t(x)] = int(order.get(y * gx + x));
  return rows;
}

TEST(BlockSwizzle, WithoutSwizzleBlocksComputeTheirOwnTile) {
  std::vector<std::vector<int>> want = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}};
  EXPECT_EQ(launch_order(order_kernel(4, 3, "pass"), 4, 3), want);
  EXPECT_EQ(launch_order(order_kernel(4, 3, "T.use_swizzle(2, enable=False)"), 4, 3), want);
}

TEST(BlockSwizzle, RowOrderWalksPanelsOfRowsAsRasterization2DRow) {
  // Panels of 2 rows, swept column by column; the second (last, 1 row) right to left.
  std::vector<std::vector<int>> want = {{0, 2, 4, 6}, {1, 3, 5, 7}, {11, 10, 9, 8}};
  EXPECT_EQ(launch_order(order_kernel(4, 3, "T.use_swizzle(panel_size=2)"), 4, 3), want);
  EXPECT_EQ(launch_order(order_kernel(4, 3, "T.use_swizzle(2, order=\"row\")"), 4, 3), want);
}

TEST(BlockSwizzle, ColumnOrderWalksPanelsOfColumnsAsRasterization2DColumn) {
  std::vector<std::vector<int>> want = {{0, 1, 11}, {2, 3, 10}, {4, 5, 9}, {6, 7, 8}};
  EXPECT_EQ(launch_order(order_kernel(3, 4, "T.use_swizzle(2, order=\"column\")"), 3, 4), want);
}

TEST(BlockSwizzle, EveryGridShapeIsAPermutation) {
  for (int gx : {1, 2, 5}) {
    for (int gy : {1, 3, 4}) {
      for (int panel : {1, 2, 3, 8}) {
        for (const char* order : {"row", "column"}) {
          auto rows = launch_order(
              order_kernel(gx, gy, fmt::format("T.use_swizzle({}, order=\"{}\")", panel, order)),
              gx, gy);
          std::vector<int> seen(size_t(gx * gy), 0);
          for (const auto& r : rows)
            for (int v : r) {
              ASSERT_GE(v, 0);
              ASSERT_LT(v, gx * gy);
              ++seen[size_t(v)];
            }
          for (int count : seen) EXPECT_EQ(count, 1) << gx << "x" << gy << " " << panel << order;
        }
      }
    }
  }
}

class BlockSwizzleCompiled : public testing::EngineTest {};

TEST_F(BlockSwizzleCompiled, TheLoweredIRBindsTheLaunchIndices) {
  ir::IRModule mod = ir::parse_kernel_source(order_kernel(4, 3, "T.use_swizzle(2)"),
                                             {.filename = "o.py", .defines = {}});
  std::string text = ir::print(mod);
  EXPECT_NE(text.find("bx_launch"), std::string::npos) << text;
  EXPECT_NE(text.find("by_launch"), std::string::npos) << text;
  Kernel c = compile(mod, "c", std::nullopt, "native");
  EXPECT_NE(c.device_source().find("bx_launch"), std::string::npos) << c.device_source();
  // Where the opencl backend is built (-DTILEC_OPENCL=ON) and has a device.
  if (target::find_target_kind("opencl") && exec::get_execution_backend("opencl")->available()) {
    Kernel cl = compile(mod, "opencl", std::nullopt, "opencl");
    EXPECT_NE(cl.device_source().find("bx_launch"), std::string::npos) << cl.device_source();
  }
}

TEST(BlockSwizzle, BadArgumentsAreLocatedErrors) {
  auto error_of = [](const std::string& swizzle) -> std::string {
    try {
      ir::parse_kernel_source(order_kernel(4, 3, swizzle), {.filename = "o.py", .defines = {}});
    } catch (const ir::SourceError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error_of("T.use_swizzle(0)").find("panel_size must be at least 1"), std::string::npos);
  EXPECT_NE(error_of("T.use_swizzle(2, order=\"diagonal\")").find("\"row\" or \"column\""),
            std::string::npos);
  EXPECT_NE(error_of("T.use_swizzle(2, num_xcds=8)").find("XCD"), std::string::npos);
  EXPECT_NE(error_of("T.use_swizzle(2)\n        T.use_swizzle(4)").find("twice"),
            std::string::npos);
}

}  // namespace
}  // namespace tilec
