// T.reduce_* on opencl: with -subgroup_reduce=1 (a device with cl_khr_subgroups) the
// generated OpenCL C reduces across work-items with sub_group_reduce_*; by default (PoCL
// here has no subgroups) through a shared-memory tree, which runs on PoCL and matches the
// interpreter. The subgroup source is checked as text only: PoCL cannot build it.
#include "../engine/test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/gpu/simt_pipeline.h"
#include "tilec/gpu/simt_tile_ops.h"
#include "tilec/opencl/codegen_opencl.h"
#include "tilec/opencl/opencl_execution_backend.h"

#include <fmt/format.h>

namespace tilec {
namespace {

const char* kRowReduce = R"PY(
import tilelang.language as T

@T.prim_func
def row_reduce(X: T.Tensor((20, 70), "float32"), M: T.Tensor((20,), "float32"),
               S: T.Tensor((20,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        X_local = T.alloc_fragment((20, 70), "float32")
        m = T.alloc_fragment((20,), "float32")
        s = T.alloc_fragment((20,), "float32")
        T.copy(X, X_local)
        T.reduce_max(X_local, m, dim=1)
        T.reduce_sum(X_local, s, dim=1)
        T.copy(m, M)
        T.copy(s, S)
)PY";

// The OpenCL C the opencl pipeline and printer make for `target`, without building it.
std::string opencl_source(const std::string& source, const std::string& target) {
  for (auto& impl : gpu::simt_tile_op_impls()) transform::register_tile_op_impl(impl);
  target::Target t = target::Target::parse(target);
  ir::IRModule lowered =
      gpu::make_simt_pipeline("opencl", 1).lower(ir::parse_kernel_source(source), t);
  std::vector<ir::PrimFunc> device;
  for (const auto& f : lowered.functions()) {
    auto kind = f->attrs.find("tilec.function_kind");
    if (kind != f->attrs.end() && std::get<std::string>(kind->second) == "device")
      device.push_back(f);
  }
  return opencl::make_opencl_device_codegen()
      .codegen(ir::IRModule(device, lowered.attrs()), t, false)
      .source;
}

TEST(OpenCLSubgroupReduce, SubgroupFunctionsWhereTheDeviceHasThem) {
  std::string src = opencl_source(kRowReduce, "opencl -subgroup_reduce=1");
  size_t pragma = src.find("#pragma OPENCL EXTENSION cl_khr_subgroups : enable");
  ASSERT_NE(pragma, std::string::npos) << src;
  EXPECT_LT(pragma, src.find("sub_group_reduce_max(")) << src;
  EXPECT_NE(src.find("sub_group_reduce_max("), std::string::npos) << src;
  EXPECT_NE(src.find("sub_group_reduce_add("), std::string::npos) << src;
  EXPECT_NE(src.find("(int)get_sub_group_local_id()"), std::string::npos) << src;
  EXPECT_NE(src.find("(int)get_num_sub_groups()"), std::string::npos) << src;
  EXPECT_NE(src.find("barrier(CLK_LOCAL_MEM_FENCE);"), std::string::npos) << src;

  std::string tree = opencl_source(kRowReduce, "opencl");
  EXPECT_EQ(tree.find("sub_group"), std::string::npos) << tree;
  EXPECT_EQ(tree.find("cl_khr_subgroups"), std::string::npos) << tree;
}

class OpenCLReduceRuns : public testing::EngineTest {
 protected:
  void SetUp() override {
    const auto& backend = opencl::opencl_execution_backend();
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
  }
};

TEST_F(OpenCLReduceRuns, SharedMemoryTreeMatchesTheInterpreterOnPoCL) {
  ir::IRModule mod = ir::parse_kernel_source(kRowReduce);
  Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
  EXPECT_EQ(kernel.device_source().find("sub_group"), std::string::npos);
  auto result = testing::run_and_compare(kernel, mod.functions().front());
  EXPECT_TRUE(result.ok) << result.detail << "\n" << kernel.device_source();
}

}  // namespace
}  // namespace tilec
