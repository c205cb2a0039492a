// T.reduce_* across the threads of a block: subgroup (warp) reductions where the target's
// printer has them (attribute subgroup_reduce), the shared-memory tree elsewhere, chosen
// by the attribute and the block shape, never by the target's name.
#include "simt_support.h"

#include "tilec/gpu/subgroup.h"

#include <fmt/format.h>

namespace tilec {
namespace {

std::string row_max_source(int threads, const char* dtype = "float32") {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def row_max(X: T.Tensor((16, 96), "{dt}"), Y: T.Tensor((16,), "{dt}")):
    with T.Kernel(1, threads={threads}) as bx:
        X_local = T.alloc_fragment((16, 96), "{dt}")
        m = T.alloc_fragment((16,), "{dt}")
        T.copy(X, X_local)
        T.reduce_max(X_local, m, dim=1)
        T.copy(m, Y)
)PY",
                     fmt::arg("dt", dtype), fmt::arg("threads", threads));
}

bool uses_subgroups(const ir::IRModule& mod) {
  return ir::print(mod).find(gpu::kSubgroupReducePrefix) != std::string::npos;
}

TEST(SubgroupReduce, UsedWhereTheTargetHasIt) {
  ir::IRModule mod = testing::lower_for_simt(row_max_source(64), "cl_test -subgroup_reduce=1");
  std::string text = ir::print(mod);
  EXPECT_NE(text.find("\"tilec_subgroup_reduce_max\", m_acc)"), std::string::npos) << text;
  EXPECT_NE(text.find("lane = T.call_extern(\"int32\", \"tilec_subgroup_local_id\")"),
            std::string::npos)
      << text;
  // A barrier after staging and one before every thread receives the results; none in
  // the per-subgroup loop or under `lane == 0`, whose trip counts and conditions differ
  // between threads.
  EXPECT_EQ(testing::count_barriers(mod.functions().front()->body), 2) << text;
  EXPECT_NE(text.find("if lane == 0:\n                    m_red[o] = combined"), std::string::npos)
      << text;
}

TEST(SubgroupReduce, SharedMemoryTreeElsewhere) {
  // opencl's default (PoCL has no cl_khr_subgroups), a cuda block that is not whole
  // warps, and 16-bit elements (the subgroup functions take 32- and 64-bit types).
  EXPECT_FALSE(uses_subgroups(testing::lower_for_simt(row_max_source(64), "cl_test")));
  EXPECT_FALSE(uses_subgroups(testing::lower_for_simt(row_max_source(48), "gpu_test")));
  EXPECT_TRUE(uses_subgroups(testing::lower_for_simt(row_max_source(64), "gpu_test")));
  EXPECT_FALSE(uses_subgroups(
      testing::lower_for_simt(row_max_source(64, "float16"), "cl_test -subgroup_reduce=1")));
}

}  // namespace
}  // namespace tilec
