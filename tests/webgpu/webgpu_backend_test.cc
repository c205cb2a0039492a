// The webgpu backend: its manifest (pipeline, WGSL device codegen, standard host codegen,
// the wgpu execution backend); the refusals of what WGSL cannot express (bfloat16, 64-bit
// values and indices, float16 without the device's shader-f16, workgroups over the
// target's and the device's limits), each a clear error instead of a wrong kernel; a WGSL
// error from naga that shows the generated line; and kernels written apart from the
// examples (2-D thread blocks, atomics, integer division with a zero divisor) matching the
// interpreter on wgpu-native. Tests that need a device skip with the reason when none is found.
#include "../cli_support.h"
#include "../engine/test_support.h"

#include "kernels.h"
#include "tilec/backend/module.h"
#include "tilec/engine/initialize.h"
#include "tilec/frontend/parser.h"
#include "tilec/webgpu/codegen_wgsl.h"
#include "tilec/webgpu/kernel_info.h"
#include "tilec/webgpu/wgpu_backend.h"

#include <fmt/format.h>

namespace tilec {
namespace {

namespace fs = std::filesystem;

// The module registers the webgpu kind's `device` attribute and the normalizer first.
#define SKIP_WITHOUT_WGPU()                                                   \
  do {                                                                        \
    tilec::initialize();                                                      \
    const auto& backend = webgpu::wgpu_execution_backend();                   \
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason(); \
  } while (0)

std::string copy_kernel(const std::string& dtype, int threads = 64, int shared = 64, int n = 256) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def copy(A: T.Tensor(({3},), "{0}"), B: T.Tensor(({3},), "{0}")):
    with T.Kernel(T.ceildiv({3}, {2}), threads={1}) as bx:
        S = T.alloc_shared(({2},), "{0}")
        T.copy(A[bx * {2}], S)
        T.copy(S, B[bx * {2}])
)PY",
                     dtype, threads, shared, n);
}

// The message of the error compiling `source` for `target` on wgpu throws.
std::string compile_error(const std::string& source, const std::string& target = "webgpu") {
  ir::IRModule mod = ir::parse_kernel_source(source);
  try {
    compile(mod, target, std::nullopt, "wgpu");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(WebGpuManifest, DeclaresPipelineDeviceCodegenAndStandardHostCodegen) {
  tilec::initialize();
  auto module = backend::get_backend("webgpu");
  EXPECT_EQ(module->target_kinds, std::vector<std::string>{"webgpu"});
  EXPECT_TRUE(module->pipelines.count("webgpu"));
  EXPECT_TRUE(module->device_codegens.count("webgpu"));
  EXPECT_TRUE(module->host_codegens.count("c"));
  ASSERT_EQ(module->execution_backends.size(), 2u);
  EXPECT_EQ(module->execution_backends[0].name, webgpu::kWgpuBackendName);
  EXPECT_EQ(module->execution_backends[1].name, "source");  // WGSL without a device
  EXPECT_EQ(exec::get_execution_backend("wgpu"), webgpu::wgpu_execution_backend());
}

TEST(WebGpuRefusals, BFloat16IsAClearError) {
  std::string what = compile_error(copy_kernel("bfloat16"));
  EXPECT_NE(what.find("webgpu codegen"), std::string::npos) << what;
  EXPECT_NE(what.find("WGSL has no bfloat16"), std::string::npos) << what;
}

TEST(WebGpuRefusals, SixtyFourBitValuesAreAClearError) {
  for (const char* dtype : {"int64", "float64"}) {
    std::string what = compile_error(copy_kernel(dtype));
    EXPECT_NE(what.find("WGSL has no 64-bit"), std::string::npos) << dtype << ": " << what;
  }
}

TEST(WebGpuRefusals, Float16WithoutShaderF16IsAClearError) {
  SKIP_WITHOUT_WGPU();
  ir::IRModule mod = ir::parse_kernel_source(copy_kernel("float16"));
  Kernel kernel = compile(mod, "webgpu", std::nullopt, "wgpu");
  EXPECT_NE(kernel.device_source().find("enable f16;"), std::string::npos);
  webgpu::WgslOptions options;
  options.shader_f16 = false;  // a device without the feature
  try {
    webgpu::print_wgsl(kernel.lowered(), options);
    FAIL() << "expected float16 to be refused";
  } catch (const ir::IRError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("lacks the `shader-f16` feature"), std::string::npos) << what;
  }
}

TEST(WebGpuRefusals, WorkgroupOverTheTargetLimitSaysWhatToChange) {
  // 8192 floats of shared memory: 32 KiB, over WebGPU's guaranteed 16 KiB.
  std::string portable = "webgpu -max_shared_memory_per_block=16384 -max_threads_per_block=256";
  std::string what = compile_error(copy_kernel("float32", 64, 8192, 8192), portable);
  EXPECT_NE(what.find("declares 32768 bytes of workgroup (shared) memory"), std::string::npos)
      << what;
  EXPECT_NE(what.find("max_shared_memory_per_block"), std::string::npos) << what;
  what = compile_error(copy_kernel("float32", 512, 512), portable);
  EXPECT_NE(what.find("512 threads per"), std::string::npos) << what;
}

TEST(WebGpuRefusals, WorkgroupOverTheDeviceLimitIsRefusedAtLaunch) {
  SKIP_WITHOUT_WGPU();
  auto facts = webgpu::wgpu_device_facts("");
  ASSERT_TRUE(facts);
  // The target is told more than the device has: the launch checks the device.
  int64_t floats = facts->max_workgroup_storage / 4 + 1024;
  std::string source = copy_kernel("float32", 64, int(floats), int(floats));
  ir::IRModule mod = ir::parse_kernel_source(source);
  std::string target = fmt::format("webgpu -max_shared_memory_per_block={}", floats * 8);
  Kernel kernel = compile(mod, target, std::nullopt, "wgpu");
  try {
    testing::run_and_compare(kernel, mod.functions().front());
    FAIL() << "expected the launch to be refused";
  } catch (const std::exception& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("maxComputeWorkgroupStorageSize"), std::string::npos) << what;
    EXPECT_NE(what.find("use smaller shared tiles"), std::string::npos) << what;
  }
}

TEST(WgslErrors, CiteTheGeneratedLines) {
  std::string source = "line one\n  let x: i32 = y;\nline three\n";
  std::string naga = "error: no definition in scope for identifier: `y`\n  ┌─ wgsl:2:16\n  │";
  auto cited = webgpu::wgsl_lines_cited(naga, source);
  ASSERT_EQ(cited.size(), 1u);
  EXPECT_EQ(cited[0], "line 2:   let x: i32 = y;");
  cited = webgpu::wgsl_lines_cited(":3:1 error: Tint's spelling", source);
  ASSERT_EQ(cited.size(), 1u);
  EXPECT_EQ(cited[0], "line 3: line three");
}

TEST(WgslErrors, ACompileErrorShowsTheGeneratedLine) {
  SKIP_WITHOUT_WGPU();
  webgpu::KernelInfo info;
  info.entry = "k";
  info.buffers = "w";
  backend::CodeArtifact device;
  device.format = "wgsl";
  device.source = webgpu::format_kernel_info(info) +
                  "\n@group(0) @binding(0) var<storage, read_write> a: array<f32>;\n"
                  "@compute @workgroup_size(1, 1, 1)\n"
                  "fn k() {\n"
                  "  a[0] = not_declared_anywhere;\n"
                  "}\n";
  backend::CodeArtifact host;
  host.format = "c";
  fs::path dir = testing::test_temp_dir("wgpu-build-error");
  try {
    webgpu::wgpu_execution_backend()->build(host, device, target::Target::parse("webgpu"),
                                            target::Target::parse("c"), dir);
    FAIL() << "expected the build to fail";
  } catch (const exec::ExecError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("WebGPU compilation of the generated WGSL failed"), std::string::npos)
        << what;
    EXPECT_NE(what.find("line 5:   a[0] = not_declared_anywhere;"), std::string::npos) << what;
    EXPECT_TRUE(fs::exists(dir / "device.wgsl")) << "the source is kept for inspection";
  }
}

TEST(WgpuBackend, UnknownDeviceListsTheAdapters) {
  SKIP_WITHOUT_WGPU();
  try {
    webgpu::wgpu_execution_backend()->cache_identity(
        target::Target::parse("webgpu -device=no-such-adapter"), target::Target::parse("c"));
    FAIL() << "expected an error";
  } catch (const exec::ExecError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("no WebGPU adapter matches -device=no-such-adapter"), std::string::npos);
    EXPECT_NE(what.find("0: "), std::string::npos) << what;
  }
}

TEST(WgpuBackend, NoAdapterOrNoLibraryMakesItUnavailableWithTheReason) {
  SKIP_WITHOUT_WGPU();
  {
    testing::ScopedEnv icds("VK_ICD_FILENAMES", "/nonexistent/no-such-icd.json");
    exec::ProcessResult listed = testing::tilec_cli({"backends"});
    EXPECT_EQ(listed.exit_code, 0) << listed.output;
    EXPECT_NE(listed.output.find("wgpu         not available"), std::string::npos) << listed.output;
    EXPECT_NE(listed.output.find("why: wgpu-native found no WebGPU adapter"), std::string::npos)
        << listed.output;
    exec::ProcessResult run =
        testing::tilec_cli({"run", testing::example("vector_add.py"), "--target", "webgpu"});
    EXPECT_NE(run.exit_code, 0) << run.output;
    // The WGSL is still shown, for WebGPU's guaranteed limits.
    exec::ProcessResult shown = testing::tilec_cli(
        {"compile", testing::example("vector_add.py"), "--target", "webgpu", "--emit", "device"});
    EXPECT_EQ(shown.exit_code, 0) << shown.output;
    EXPECT_NE(shown.output.find("@compute @workgroup_size(128, 1, 1)"), std::string::npos)
        << shown.output;
    EXPECT_NE(shown.output.find("-max_shared_memory_per_block=16384"), std::string::npos)
        << shown.output;
  }
  testing::ScopedEnv library("TILEC_WGPU_LIBRARY", "/nonexistent/libwgpu_native.so");
  exec::ProcessResult listed = testing::tilec_cli({"backends"});
  EXPECT_NE(listed.output.find("why: cannot load wgpu-native from '/nonexistent/"),
            std::string::npos)
      << listed.output;
}

class WebGpuKernels : public testing::EngineTest {
 protected:
  void expect_matches(const std::string& source, std::map<std::string, int64_t> values = {}) {
    SKIP_WITHOUT_WGPU();
    ir::IRModule mod = ir::parse_kernel_source(source);
    Kernel kernel = compile(mod, "webgpu", std::nullopt, "wgpu");
    for (const auto& f : mod.functions()) {
      auto result = testing::run_and_compare(kernel, f, values);
      EXPECT_TRUE(result.ok) << f->name << ": " << result.detail << "\n" << kernel.device_source();
    }
  }
};

TEST(WebGpuRefusals, SymbolicShapesNeedSixtyFourBitIndices) {
  std::string what = compile_error(R"PY(
import tilelang.language as T

M = T.symbolic("M")

@T.prim_func
def copy(X: T.Tensor((M,), "float32"), Y: T.Tensor((M,), "float32")):
    with T.Kernel(T.ceildiv(M, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < M:
                Y[bx * 64 + i] = X[bx * 64 + i]
)PY");
  EXPECT_NE(what.find("indexes tensor 'X' in 64-bit arithmetic"), std::string::npos) << what;
}

TEST_F(WebGpuKernels, ScalarsAndEdgeTiles) {
  expect_matches(testing::kScalarsKernel, {{"a", 3}, {"k", 7}});
}

TEST_F(WebGpuKernels, DivisionByZeroIsReportedAsOnTheCpu) {
  SKIP_WITHOUT_WGPU();
  ir::IRModule mod = ir::parse_kernel_source(testing::kDivisionKernel);
  Kernel kernel = compile(mod, "webgpu", std::nullopt, "wgpu");
  try {
    testing::run_and_compare(kernel, mod.functions().front(), {{"d", 0}});
    FAIL() << "expected the division by zero to be reported";
  } catch (const std::exception& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("integer division by zero in device function"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tilec

namespace tilec {
namespace {

// T.reduce_* through WGSL's subgroup builtins where the device has `subgroups`, and through
// the shared-memory tree with -subgroup_reduce=0; both match the interpreter.
// The kernels of kernels.h without scalars: int32/float32 atomics on a 2-D block, transposes
// through shared memory, float16 row reductions (absmax, min), int8/int16/bool inputs read from
// packed words, a 3-D grid with workgroup atomics, and a pipelined float16 gemm with a bias and a
// ReLU.
TEST_F(WebGpuKernels, KernelsWrittenApartFromTheExamples) {
  for (const auto& [name, source] : testing::webgpu_kernels()) {
    SCOPED_TRACE(name);
    expect_matches(source);
  }
}

TEST_F(WebGpuKernels, ReductionsUseSubgroupsWhereTheDeviceHasThem) {
  SKIP_WITHOUT_WGPU();
  ir::IRModule mod = ir::parse_kernel_file(testing::example("softmax.py"));
  auto facts = webgpu::wgpu_device_facts("");
  ASSERT_TRUE(facts);
  for (const char* target : {"webgpu", "webgpu -subgroup_reduce=0"}) {
    Kernel kernel = compile(mod, target, std::nullopt, "wgpu");
    bool subgroups = std::string(target) == "webgpu" && facts->subgroups;
    EXPECT_EQ(kernel.device_source().find("subgroupMax(") != std::string::npos, subgroups)
        << target;
    auto result = testing::run_and_compare(kernel, mod.functions().front());
    EXPECT_TRUE(result.ok) << target << ": " << result.detail;
  }
}

}  // namespace
}  // namespace tilec
