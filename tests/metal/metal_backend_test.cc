// The metal backend's manifest (pipeline, device codegen, standard host codegens and the
// metal_context hook for kind `metal`), the hook itself (it runs for metal targets and not
// for cuda ones, marks every device launch, and the c and llvm host code show the mark), the
// MSL the printer emits (kernel entries, argument table, attribute arguments, threadgroup
// tiles and barriers, half/bfloat, simdgroup reductions) and the limits it enforces at
// compile time (32 KiB of threadgroup memory, no float64).
#include "../engine/test_support.h"

#include "tilec/backend/host_codegen.h"
#include "tilec/backend/module.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/exec/emulator.h"
#include "tilec/exec/source_backend.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"
#include "tilec/metal/codegen_metal.h"
#include "tilec/metal/metal_context.h"
#include "tilec/transform/split_host_device.h"

#include <regex>

namespace tilec {
namespace {

namespace fs = std::filesystem;

fs::path example(const std::string& name) {
  return fs::path(TILEC_SOURCE_DIR) / "examples" / (name + ".py");
}

Kernel compile_source_only(const std::string& name, const std::string& target = "metal",
                           std::optional<std::string> host = std::nullopt,
                           std::map<std::string, std::string> defines = {}) {
  return compile(ir::parse_kernel_file(example(name).string(), defines), target, host,
                 exec::kSourceBackendName);
}

class MetalBackend : public testing::EngineTest {};

TEST_F(MetalBackend, ManifestHasPipelineDeviceCodegenHostCodegensAndTheHook) {
  tilec::initialize();
  auto module = backend::get_backend("metal");
  ASSERT_TRUE(module);
  EXPECT_EQ(module->target_kinds, std::vector<std::string>{"metal"});
  ASSERT_TRUE(module->pipelines.count("metal"));
  std::vector<std::string> passes;
  for (const auto& p : module->pipelines.at("metal").passes()) passes.push_back(p.name);
  EXPECT_NE(std::find(passes.begin(), passes.end(), "gpu.lower_simt"), passes.end());
  EXPECT_EQ(passes.back(), "tilec.split_host_device");
  ASSERT_TRUE(module->device_codegens.count("metal"));
  EXPECT_EQ(module->device_codegens.at("metal").name, "metal");
  ASSERT_TRUE(module->host_codegens.count("c"));
  EXPECT_EQ(module->host_codegens.at("c").name, "c");
  ASSERT_TRUE(module->host_codegen_hooks.count("metal"));
  ASSERT_EQ(module->host_codegen_hooks.at("metal").size(), 1u);
  EXPECT_EQ(module->host_codegen_hooks.at("metal")[0].name, metal::kMetalContextHookName);
  std::vector<std::string> execution;
  for (const auto& e : module->execution_backends) execution.push_back(e.name);
  EXPECT_EQ(execution, (std::vector<std::string>{"source", "emulator"}));
}

TEST_F(MetalBackend, ApplyHostCodegenHooksRunsMetalContextForMetalOnly) {
  tilec::initialize();
  // The host module of a real compilation: one host function that launches on the device.
  Kernel kernel = compile_source_only("vector_add");
  ir::IRModule lowered = kernel.lowered();
  ir::IRModule host;
  for (const auto& f : lowered.functions()) {
    auto kind = f->attrs.find(transform::kFunctionKindAttr);
    if (kind != f->attrs.end() && kind->second == ir::AttrValue(std::string("host")))
      host = host.with_function(f);
  }
  ASSERT_EQ(host.functions().size(), 1u);
  ASSERT_TRUE(transform::launches_on_device(host.functions()[0]));
  EXPECT_EQ(host.functions()[0]->attrs.count(codegen::kLaunchContextAttr), 0u);

  target::Target host_target = target::Target::parse("c");
  target::Target metal_target = target::Target::parse("metal");
  ir::IRModule marked = backend::apply_host_codegen_hooks(host, host_target, &metal_target);
  auto mark = marked.functions()[0]->attrs.find(codegen::kLaunchContextAttr);
  ASSERT_NE(mark, marked.functions()[0]->attrs.end());
  EXPECT_EQ(mark->second, ir::AttrValue(std::string(metal::kMetalContextMark)));

  EXPECT_EQ(marked.attrs().count(codegen::kLaunchContextAttr), 1u);

  target::Target cuda_target = target::Target::parse("cuda -arch=sm_80");
  ir::IRModule unmarked = backend::apply_host_codegen_hooks(host, host_target, &cuda_target);
  EXPECT_EQ(unmarked.functions()[0]->attrs.count(codegen::kLaunchContextAttr), 0u);
  EXPECT_EQ(unmarked.attrs().count(codegen::kLaunchContextAttr), 0u);
  // Through the contexts, as compile() applies them.
  auto metal_context = backend::create_backend_context("metal", "c", "source");
  EXPECT_EQ(metal_context.preprocess_host_codegen(host).functions()[0]->attrs.count(
                codegen::kLaunchContextAttr),
            1u);
  auto cuda_context = backend::create_backend_context("cuda -arch=sm_80", "c", "source");
  EXPECT_EQ(cuda_context.preprocess_host_codegen(host).functions()[0]->attrs.count(
                codegen::kLaunchContextAttr),
            0u);
}

TEST_F(MetalBackend, HostCodeShowsTheMarkedLaunchInCAndLlvm) {
  Kernel c_host = compile_source_only("gemm", "metal", "c");
  EXPECT_NE(c_host.host_source().find(std::string("/* launch context: ") +
                                      metal::kMetalContextMark + " */"),
            std::string::npos)
      << c_host.host_source();
  Kernel cuda = compile_source_only("gemm", "cuda -arch=sm_80", "c");
  EXPECT_EQ(cuda.host_source().find("launch context"), std::string::npos);
#ifdef TILEC_HAVE_LLVM
  Kernel llvm_host = compile_source_only("gemm", "metal");  // the default host target: llvm
  EXPECT_NE(llvm_host.host_source().find("!tilec.launch_context"), std::string::npos)
      << llvm_host.host_source();
  EXPECT_NE(llvm_host.host_source().find(metal::kMetalContextMark), std::string::npos);
#endif
}

TEST_F(MetalBackend, GemmIsMslWithArgumentTableThreadgroupTilesAndSimdgroupMatrices) {
  Kernel kernel = compile_source_only("gemm");
  const std::string& msl = kernel.device_source();
  for (const char* piece :
       {"#include <metal_stdlib>", "using namespace metal;",
        "[[max_total_threads_per_threadgroup(128)]]\nkernel void gemm_kernel(",
        "device half* A [[buffer(0)]]", "device half* B [[buffer(1)]]",
        "device half* C [[buffer(2)]]", "uint3 tilec_group_id [[threadgroup_position_in_grid]]",
        "uint3 tilec_thread_id [[thread_position_in_threadgroup]]",
        "uint tilec_thread_index [[thread_index_in_threadgroup]]",
        "alignas(16) threadgroup half A_shared[2048];",
        "threadgroup_barrier(mem_flags::mem_threadgroup);", "simdgroup_load(",
        "simdgroup_multiply_accumulate(", "thread_elements()",
        "tilec_simdgroup_gemm<half, 4, 4, false, false>(&C_local[0], &A_shared["}) {
    EXPECT_NE(msl.find(piece), std::string::npos) << piece << "\n" << msl;
  }
  EXPECT_EQ(msl.find("__syncthreads"), std::string::npos);
  // The accumulator is laid out as the simdgroup matrices' thread_elements.
  EXPECT_NE(ir::print(kernel.lowered()).find("simdgroup_matrix 8x8"), std::string::npos);
}

TEST_F(MetalBackend, ScalarsAreConstantReferencesAndBfloatIsMetal31sType) {
  const char* source = R"PY(
import tilelang.language as T

N = T.symbolic("N")
@T.prim_func
def scale(A: T.Tensor((N,), "bfloat16"), B: T.Tensor((N,), "bfloat16")):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < N:
                B[bx * 64 + i] = A[bx * 64 + i] * 3.0
)PY";
  Kernel kernel =
      compile(ir::parse_kernel_source(source), "metal", std::nullopt, exec::kSourceBackendName);
  const std::string& msl = kernel.device_source();
  EXPECT_NE(msl.find("device bfloat* A [[buffer(0)]]"), std::string::npos) << msl;
  EXPECT_TRUE(std::regex_search(msl, std::regex(R"(constant int32_t& \w+ \[\[buffer\(\d\)\]\])")))
      << msl;
  EXPECT_NE(msl.find("bfloat"), std::string::npos) << msl;
  EXPECT_NE(msl.find("inline float tilec_bf16_to_f32(bfloat h)"), std::string::npos);
}

TEST_F(MetalBackend, ReductionsUseSimdSumAndAShuffleXorButterfly) {
  Kernel kernel = compile_source_only("softmax");
  const std::string& msl = kernel.device_source();
  EXPECT_NE(msl.find("simd_sum("), std::string::npos) << msl;
  EXPECT_NE(msl.find("simd_shuffle_xor(v, offset)"), std::string::npos) << msl;
  EXPECT_NE(msl.find("tilec_simd_max("), std::string::npos) << msl;
}

TEST_F(MetalBackend, RefusesMoreThan32KiBOfThreadgroupMemoryAtCompileTime) {
  // reduce_sum's X tile alone is 32 KiB in float32; the reduction's 128-byte scratch
  // takes it past the limit.
  try {
    compile_source_only("reduce_sum");
    FAIL() << "expected the 32 KiB limit";
  } catch (const std::exception& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("kernel 'row_sum_kernel' uses 32896 bytes of threadgroup memory"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("at most 32768 (32 KiB)"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(compile_source_only("reduce_sum", "metal", std::nullopt, {{"block_M", "8"}}));
}

TEST_F(MetalBackend, RefusesFloat64SayingMetalHasNone) {
  const char* source = R"PY(
import tilelang.language as T

@T.prim_func
def twice(A: T.Tensor((64,), "float64"), B: T.Tensor((64,), "float64")):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            B[i] = A[i] * 2.0
)PY";
  try {
    compile(ir::parse_kernel_source(source), "metal", std::nullopt, exec::kSourceBackendName);
    FAIL() << "expected float64 to be refused";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("Metal has no 64-bit floating point type"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(MetalBackend, AZeroDivisorIsReportedThroughTheStatusBuffer) {
  if (!exec::get_execution_backend(exec::kEmulatorBackendName)->available())
    GTEST_SKIP() << exec::get_execution_backend(exec::kEmulatorBackendName)->unavailable_reason();
  const char* source = R"PY(
import tilelang.language as T

@T.prim_func
def div(A: T.Tensor((64,), "int32"), B: T.Tensor((64,), "int32"), d: T.int32):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            B[i] = A[i] // d
)PY";
  ir::IRModule mod = ir::parse_kernel_source(source);
  Kernel kernel = compile(mod, "metal", std::nullopt, exec::kEmulatorBackendName);
  EXPECT_NE(kernel.device_source().find("device atomic_int* tilec_status [[buffer(3)]]"),
            std::string::npos)
      << kernel.device_source();
  auto result = testing::run_and_compare(kernel, mod.functions()[0], {{"d", 3}});
  EXPECT_TRUE(result.ok) << result.detail;
  ir::HostTensor a(ir::DataType::Int32(), {64});
  ir::HostTensor b(ir::DataType::Int32(), {64});
  try {
    kernel.call("div", std::vector<KernelArg>{a.view(), b.view(), int64_t(0)});
    FAIL() << "expected the division by zero to be reported";
  } catch (const std::exception& e) {
    EXPECT_NE(
        std::string(e.what()).find("integer division by zero in device function 'div_kernel'"),
        std::string::npos)
        << e.what();
  }
}

TEST_F(MetalBackend, AutoPicksSourceAndTheEmulatorRunsOnlyWhenAsked) {
  Kernel kernel = compile(ir::parse_kernel_file(example("vector_add").string()), "metal");
  EXPECT_EQ(kernel.execution_backend(), exec::kSourceBackendName);
  EXPECT_NE(kernel.device_source().find("kernel void vector_add_kernel("), std::string::npos);
}

}  // namespace
}  // namespace tilec
