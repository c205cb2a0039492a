// The cpu manifest and its pipeline: what it declares, the lowering output contract
// (host + device functions), the C device codegen's modes, and the grid mapping of
// 3-D kernels onto the flattened block range.
#include "tilec/cpu/backend.h"
#include "tilec/cpu/module.h"

#include "run_on_cpu.h"

#include "tilec/backend/backend_error.h"
#include "tilec/cpu/codegen_c_device.h"
#include "tilec/cpu/pipeline.h"
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

namespace tilec::cpu {
namespace {

const char* kGrid3d = R"(
import tilelang.language as T
@T.prim_func
def ids(Out: T.Tensor((2, 3, 5), "int32")):
    with T.Kernel(5, 3, 2, threads=64) as (bx, by, bz):
        S = T.alloc_shared((4,), "int32")
        for i in T.Parallel(4):
            S[i] = bx + 10 * by + 100 * bz + i
        Out[bz, by, bx] = S[3]
)";

TEST(CpuBackend, ManifestDeclaresTheCpuBackend) {
  backend::BackendModule m = make_cpu_backend_module();
  EXPECT_NO_THROW(m.validate());
  EXPECT_EQ(m.name, "cpu");
  EXPECT_EQ(m.target_kinds, (std::vector<std::string>{"c", "llvm"}));
  ASSERT_EQ(m.pipelines.count("c"), 1u);
  ASSERT_EQ(m.pipelines.count("llvm"), 1u);
  EXPECT_EQ(m.pipelines.at("llvm").pass_names(), m.pipelines.at("c").pass_names());
  EXPECT_EQ(m.pipelines.at("c").name(), "cpu");
  EXPECT_EQ(
      m.pipelines.at("c").pass_names(),
      (std::vector<std::string>{
          "tilec.work_item_loops", "cpu.prefetch_pipelined_copies", "tilec.lower_tile_ops",
          "cpu.spread_prefetches", "cpu.reuse_invariant_copies", "cpu.transpose_copies",
          "tilec.simplify", "cpu.fuse_row_loops", "tilec.bounds_check", "tilec.flatten_buffers",
          "tilec.simplify", "tilec.vectorize_loops", "tilec.split_host_device"}));
#ifdef TILEC_HAVE_LLVM
  // `auto` order: llvm_jit (llvm targets only), then native (both kinds).
  ASSERT_EQ(m.execution_backends.size(), 2u);
  EXPECT_EQ(m.execution_backends[0].name, "llvm_jit");
  EXPECT_TRUE(m.execution_backends[0].matches(target::Target::parse("llvm")));
  EXPECT_FALSE(m.execution_backends[0].matches(target::Target::parse("c")));
  EXPECT_EQ(m.allowed_execution_backends(target::Target::parse("llvm")),
            (std::vector<std::string>{"llvm_jit", "native"}));
  EXPECT_EQ(m.allowed_execution_backends(target::Target::parse("c")),
            std::vector<std::string>{"native"});
  ASSERT_EQ(m.host_codegens.count("llvm"), 1u);
  EXPECT_EQ(m.host_codegens.at("llvm").name, "llvm");
#else
  ASSERT_EQ(m.execution_backends.size(), 1u);
#endif
  const backend::ExecutionBackendSpec& native = m.execution_backends.back();
  EXPECT_EQ(native.name, "native");
  EXPECT_TRUE(native.enable_host_codegen);
  EXPECT_FALSE(native.enable_device_compile);
  ASSERT_EQ(m.host_codegens.count("c"), 1u);
  EXPECT_EQ(m.host_codegens.at("c").name, "c");
  ASSERT_EQ(m.device_codegens.count("c"), 1u);
  ASSERT_EQ(m.device_codegens.count("llvm"), 1u);
}

TEST(CpuBackend, RegistrationIsIdempotent) {
  register_cpu_backend();
  EXPECT_NO_THROW(register_cpu_backend());
  EXPECT_EQ(backend::get_backend("cpu")->name, "cpu");
}

TEST(CpuBackend, LoweringSplitsHostAndDevice) {
  target::Target target = target::Target::parse("c");
  ir::IRModule lowered = make_cpu_pipeline().lower(ir::parse_kernel_source(kGrid3d), target);
  ASSERT_EQ(lowered.size(), 2u);
  const ir::PrimFunc& host = lowered.lookup("ids");
  const ir::PrimFunc& device = lowered.lookup("ids_kernel");
  EXPECT_EQ(host->attrs.at("tilec.function_kind"), ir::AttrValue(std::string("host")));
  EXPECT_EQ(host->attrs.at("tilec.device_type"), ir::AttrValue(int64_t{1}));
  ASSERT_NE(host->body.as<ir::LaunchNode>(), nullptr);
  EXPECT_EQ(host->body.as<ir::LaunchNode>()->grid.size(), 3u);
  ASSERT_EQ(device->params.size(), 3u);
  EXPECT_EQ(device->params[1].name(), "block_begin");
  EXPECT_EQ(device->params[2].name(), "block_end");
  // The per-block tile is hoisted out of the block loop.
  EXPECT_EQ(device->body.kind(), ir::StmtKind::kAllocate);
}

TEST(CpuBackend, DeviceCodegenOnlyGeneratesSource) {
  target::Target target = target::Target::parse("c");
  ir::IRModule lowered = make_cpu_pipeline().lower(ir::parse_kernel_source(kGrid3d), target);
  backend::DeviceCodegen codegen = make_c_device_codegen();
  backend::CodeArtifact artifact = codegen.codegen(lowered, target, false);
  EXPECT_EQ(artifact.format, "c");
  EXPECT_EQ(artifact.entry_points, std::vector<std::string>{"ids_kernel_task"});
  EXPECT_NE(artifact.source.find("static int32_t ids_kernel(int32_t* restrict Out, int64_t "
                                 "block_begin, int64_t block_end)"),
            std::string::npos)
      << artifact.source;
  EXPECT_THROW(codegen.codegen(lowered, target, true), backend::BackendError);
}

TEST(CpuBackend, ThreeDimensionalGridMatchesInterpreter) {
  testing::CpuRunResult r =
      testing::run_and_compare(ir::parse_kernel_source(kGrid3d), "ids", {}, 3);
  EXPECT_TRUE(r.ok) << r.report << r.device_source;
}

}  // namespace
}  // namespace tilec::cpu
