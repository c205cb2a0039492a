// The cuda backend on a machine with the CUDA toolkit but (usually) no GPU: every example
// (and its float16/bfloat16 forms) and the edge tiles compile through NVRTC for sm_80 and
// sm_90, and ptxas accepts NVRTC's PTX for that arch; the device code is readable CUDA
// (extern "C" __global__, __launch_bounds__, __shared__, __syncthreads); tiles above 48 KB
// go to dynamic shared memory; `auto` resolves to nvrtc, the CuTe key is declined; nvcc
// and source build; running without a driver, or resolving without NVRTC, fails saying
// so. Tests that need NVRTC, nvcc or ptxas skip with the reason when it is missing.
#include "../cli_support.h"
#include "../engine/test_support.h"
#include "build_paths.h"

#include "tilec/backend/module.h"
#include "tilec/cuda/backend.h"
#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/engine/initialize.h"
#include "tilec/exec/source_backend.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"

#include <fstream>
#include <regex>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

#define SKIP_WITHOUT(backend_name)                                            \
  do {                                                                        \
    auto builder = exec::get_execution_backend(backend_name);                 \
    if (!builder->available()) GTEST_SKIP() << builder->unavailable_reason(); \
  } while (0)

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct CompileCase {
  std::string file;
  std::string dtype;  // "" = as written
  std::string arch;
  std::string name() const {
    std::string stem = fs::path(file).stem().string();
    return stem + (dtype.empty() ? "" : "_" + dtype) + "_" + arch;
  }
};

// Every example at sm_80 in each dtype it offers; at sm_90 as written (the device code
// differs only in the arch, so this keeps NVRTC time down: about a second a compile).
std::vector<CompileCase> compile_cases() {
  std::vector<CompileCase> cases;
  fs::path dir = fs::path(TILEC_SOURCE_DIR) / "examples";
  std::vector<fs::path> files;
  for (const auto& item : fs::directory_iterator(dir))
    if (item.path().extension() == ".py") files.push_back(item.path());
  std::sort(files.begin(), files.end());
  static const std::regex dtype_constant(R"((^|\n)dtype\s*=\s*["'])");
  for (const auto& file : files) {
    cases.push_back({file.string(), "", "sm_80"});
    cases.push_back({file.string(), "", "sm_90"});
    if (std::regex_search(read_text(file), dtype_constant)) {
      cases.push_back({file.string(), "float16", "sm_80"});
      cases.push_back({file.string(), "bfloat16", "sm_80"});
    }
  }
  return cases;
}

void PrintTo(const CompileCase& c, std::ostream* out) {
  *out << c.name();
}

class CudaExamples : public ::testing::TestWithParam<CompileCase> {};

TEST_P(CudaExamples, CompileThroughNvrtcAndPtxasAcceptsThePtx) {
  SKIP_WITHOUT(cuda::kNvrtcBackendName);
  const CompileCase& c = GetParam();
  // No kernel cache (a fresh compile each run): the private build directory (with device.ptx) lives
  // as long as kernel.
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  std::map<std::string, std::string> defines;
  if (!c.dtype.empty()) defines["dtype"] = c.dtype;
  ir::IRModule mod = ir::parse_kernel_file(c.file, defines);
  Kernel kernel = compile(mod, "cuda -arch=" + c.arch, std::nullopt, "nvrtc");
  EXPECT_EQ(kernel.context().name(), "cuda");
  EXPECT_EQ(kernel.execution_backend(), "nvrtc");
  EXPECT_NE(kernel.device_source().find("extern \"C\" __global__ void __launch_bounds__("),
            std::string::npos)
      << kernel.device_source();
  fs::path ptx = kernel.library_path().parent_path() / "device.ptx";
  ASSERT_TRUE(fs::exists(ptx)) << ptx;
  EXPECT_NE(read_text(ptx).find(".target " + c.arch), std::string::npos);
  if (kernel.device_source().find("tilec_mma_m16n8k16_") != std::string::npos) {
    // A tensor-core gemm: its inline PTX reaches the PTX that ptxas checks below.
    std::string text = read_text(ptx);
    EXPECT_NE(text.find("mma.sync.aligned.m16n8k16.row.col.f32."), std::string::npos) << ptx;
    EXPECT_NE(text.find("ldmatrix.sync.aligned.m8n8."), std::string::npos) << ptx;
  }
  fs::path ptxas = cuda::cuda_toolkit_root() / "bin" / "ptxas";
  if (!fs::exists(ptxas)) GTEST_SKIP() << "no ptxas at " << ptxas;
  exec::ProcessResult checked = exec::run_process(
      {ptxas.string(), "-arch=" + c.arch, ptx.string(), "-o", (ptx.string() + ".cubin")});
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
}

INSTANTIATE_TEST_SUITE_P(AllExamples, CudaExamples, ::testing::ValuesIn(compile_cases()),
                         [](const ::testing::TestParamInfo<CompileCase>& info) {
                           std::string name = info.param.name();
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

Kernel compile_example(const char* file, const std::string& target, const std::string& backend,
                       const std::map<std::string, std::string>& defines = {}) {
  return compile(ir::parse_kernel_file(testing::example(file), defines), target, std::nullopt,
                 backend);
}

TEST(CudaCodegen, GemmDeviceCodeIsReadableCuda) {
  Kernel kernel = compile_example("gemm.py", "cuda -arch=sm_80", "source");
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("extern \"C\" __global__ void __launch_bounds__(128)"), std::string::npos)
      << src;
  EXPECT_NE(src.find("__shared__ __align__(16) uint16_t"), std::string::npos) << src;
  EXPECT_NE(src.find("__syncthreads();"), std::string::npos) << src;
  EXPECT_NE(src.find("(int)threadIdx.x"), std::string::npos) << src;
  EXPECT_NE(src.find("(int)blockIdx.x"), std::string::npos) << src;
  EXPECT_NE(src.find("#include <cuda_fp16.h>"), std::string::npos) << src;
  EXPECT_NE(src.find("__restrict__"), std::string::npos) << src;
  EXPECT_EQ(src.find("tilec_dynamic_shared"), std::string::npos) << "48 KB fits statically";
}

// Which gemms run on tensor cores: float16/bfloat16 operands in shared memory with a
// float32 accumulator fragment on sm_80+ (fragment operands the SIMT lowering stages in
// shared memory among them: dequant_gemm's B, flash_attention's probabilities); float32
// gemms, 16-bit accumulators and sm_75 keep the SIMT gemm.
TEST(CudaCodegen, HalfPrecisionGemmsUseTensorCoresOnSm80AndNewer) {
  auto uses_mma = [](const char* file, const std::string& arch,
                     const std::map<std::string, std::string>& defines = {}) {
    Kernel kernel = compile_example(file, "cuda -arch=" + arch, "source", defines);
    const std::string& src = kernel.device_source();
    bool mma = src.find("tilec_mma_m16n8k16_") != std::string::npos;
    if (mma) {
      EXPECT_NE(src.find("ldmatrix.sync.aligned.m8n8.x4"), std::string::npos) << src;
      EXPECT_NE(src.find("tilec_ldmatrix_x4(&"), std::string::npos) << src;
    }
    return mma;
  };
  for (const char* arch : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    EXPECT_TRUE(uses_mma("gemm.py", arch));
    EXPECT_TRUE(uses_mma("gemm.py", arch, {{"dtype", "bfloat16"}}));
    EXPECT_TRUE(uses_mma("gemm_splitk.py", arch));
    EXPECT_TRUE(uses_mma("gemm_swizzle.py", arch));
    EXPECT_TRUE(uses_mma("flash_attention.py", arch));
    EXPECT_FALSE(uses_mma("gemm_fp32.py", arch));
    EXPECT_FALSE(uses_mma("gemm_nt.py", arch, {{"dtype", "float16"}}));  // float16 accumulator
    // The dequantized B fragment (replicated it would exceed cuda's per-thread register
    // budget) is staged in shared memory, so the tensor-core gemm reads it from there.
    EXPECT_TRUE(uses_mma("dequant_gemm.py", arch));
  }
  EXPECT_FALSE(uses_mma("gemm.py", "sm_75"));
  // The accumulator's layout is the mma one, readable in the lowered IR.
  Kernel kernel = compile_example("gemm.py", "cuda -arch=sm_80", "source");
  std::string lowered = ir::print(kernel.lowered());
  EXPECT_NE(lowered.find("C_local[64, 64] float32: mma m16n8 C/D (warps 2x2, 2x4 tiles each) "
                         "over 128 threads"),
            std::string::npos)
      << lowered;
  EXPECT_NE(lowered.find("tilec_mma_m16n8k16_f16"), std::string::npos) << lowered;
}

TEST(CudaCodegen, TilesAbove48KBUseDynamicSharedMemory) {
  // 64x128 + 128x64 float16 tiles in the 3 stages of the cp.async pipeline: 96 KB.
  std::map<std::string, std::string> big = {{"block_K", "128"}};
  Kernel kernel = compile_example("gemm.py", "cuda -arch=sm_90", "source", big);
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("extern \"C\" __device__ int64_t tilec_dynamic_shared_bytes_"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("= 98304;"), std::string::npos) << src;
  EXPECT_NE(src.find("extern __shared__ __align__(16) unsigned char tilec_dynamic_shared[];"),
            std::string::npos)
      << src;
  if (!cuda::nvrtc_unavailable_reason().empty()) GTEST_SKIP() << cuda::nvrtc_unavailable_reason();
  cuda::CudaCompileResult compiled = cuda::nvrtc_compile(src, "big_gemm.cu", "sm_90");
  EXPECT_FALSE(compiled.cubin.empty());
  EXPECT_NE(compiled.ptx.find("tilec_dynamic_shared_bytes_"), std::string::npos);
}

TEST(CudaCodegen, DivisionByARuntimeDivisorReportsThroughTheStatusWord) {
  ir::IRModule mod = ir::parse_kernel_source(R"PY(import tilelang.language as T

@T.prim_func
def divide(A: T.Tensor((64,), "int32"), Q: T.Tensor((64,), "int32"), d: T.int32):
    with T.Kernel(2, threads=32) as bx:
        for i in T.Parallel(32):
            Q[bx * 32 + i] = A[bx * 32 + i] // d
)PY");
  Kernel kernel = compile(mod, "cuda -arch=sm_80", std::nullopt, "source");
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("extern \"C\" __device__ int tilec_status_"), std::string::npos) << src;
  EXPECT_NE(src.find("_checked("), std::string::npos) << src;
  EXPECT_NE(src.find("atomicMax(&tilec_status_"), std::string::npos) << src;
  if (!cuda::nvrtc_unavailable_reason().empty()) GTEST_SKIP() << cuda::nvrtc_unavailable_reason();
  cuda::CudaCompileResult compiled = cuda::nvrtc_compile(src, "divide.cu", "sm_80");
  EXPECT_FALSE(compiled.cubin.empty());
  EXPECT_NE(compiled.ptx.find("tilec_status_"), std::string::npos);
}

TEST(CudaResolve, AutoIsNvrtcAndTheCuteKeyIsDeclined) {
  initialize();
  backend::BackendModulePtr cuda = backend::get_backend("cuda");
  EXPECT_TRUE(cuda->matches(target::Target::parse("cuda -arch=sm_90")));
  EXPECT_FALSE(cuda->matches(target::Target::parse("cuda -arch=sm_90 -keys=cuda,gpu,cute")));
  std::vector<std::string> allowed =
      cuda->allowed_execution_backends(target::Target::parse("cuda -arch=sm_90"));
  // The device emulator last: `auto` never reaches it (source is always available).
  EXPECT_EQ(allowed, (std::vector<std::string>{"nvrtc", "nvcc", "source", "emulator"}));
  SKIP_WITHOUT(cuda::kNvrtcBackendName);
  auto context = backend::create_backend_context(target::Target::parse("cuda -arch=sm_90"),
                                                 std::nullopt, "auto");
  EXPECT_EQ(context.name(), "cuda");
  EXPECT_EQ(context.execution_backend().name, "nvrtc");
}

TEST(CudaResolve, CliResolveJsonNamesCudaAndNvrtc) {
  SKIP_WITHOUT(cuda::kNvrtcBackendName);
  exec::ProcessResult out =
      testing::tilec_cli({"resolve", "--target", "cuda -arch=sm_90", "--json"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("\"cuda\""), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("\"nvrtc\""), std::string::npos) << out.output;
}

TEST(CudaRun, WithoutADriverTheCallSaysSo) {
  SKIP_WITHOUT(cuda::kNvrtcBackendName);
  if (cuda::cuda_driver_unavailable_reason().empty())
    GTEST_SKIP() << "a CUDA driver is loaded here; scripts/gpu_check.sh runs kernels on it";
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  Kernel kernel = compile_example("vector_add.py", "cuda -arch=sm_90", "nvrtc");
  exec::ProcessResult run = testing::tilec_cli(
      {"run", testing::example("vector_add.py"), "--target", "cuda -arch=sm_90"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("no CUDA driver"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("libcuda.so.1"), std::string::npos) << run.output;
}

TEST(CudaRun, WithoutNvrtcAutoFallsBackAndNvrtcSaysWhy) {
  testing::ScopedEnv missing("TILEC_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so");
  auto nvrtc = exec::get_execution_backend(cuda::kNvrtcBackendName);
  EXPECT_FALSE(nvrtc->available());
  EXPECT_NE(nvrtc->unavailable_reason().find("NVRTC could not be loaded"), std::string::npos)
      << nvrtc->unavailable_reason();
  EXPECT_NE(nvrtc->unavailable_reason().find("/nonexistent/libnvrtc.so"), std::string::npos);
  try {
    compile_example("vector_add.py", "cuda -arch=sm_90", "nvrtc");
    FAIL() << "nvrtc must be refused without NVRTC";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("nvrtc"), std::string::npos) << e.what();
  }
  initialize();
  auto context = backend::create_backend_context(target::Target::parse("cuda -arch=sm_90"),
                                                 std::nullopt, "auto");
  EXPECT_EQ(context.execution_backend().name,
            exec::is_execution_backend_available("nvcc") ? "nvcc" : "source");
}

TEST(CudaRun, NvccBuildsTheCubin) {
  SKIP_WITHOUT(cuda::kNvccBackendName);
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  Kernel kernel = compile_example("vector_add.py", "cuda -arch=sm_80", "nvcc");
  EXPECT_EQ(kernel.execution_backend(), "nvcc");
  fs::path cubin = kernel.library_path().parent_path() / "device.cubin";
  ASSERT_TRUE(fs::exists(cubin));
  EXPECT_EQ(read_text(cubin).substr(0, 4),
            "\x7f"
            "ELF");
}

TEST(CudaRun, SourceBuildsNothingAndRefusesToRun) {
  Kernel kernel = compile_example("vector_add.py", "cuda -arch=sm_90", "source");
  EXPECT_EQ(kernel.execution_backend(), "source");
  EXPECT_TRUE(fs::exists(kernel.library_path().parent_path() / "device.cu"));
  try {
    kernel.call(std::vector<DLTensor*>{});
    FAIL() << "the source backend must refuse to run";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("builds nothing"), std::string::npos) << e.what();
  }
}

TEST(CudaToolkit, ArchMustBeAnSmArchitecture) {
  EXPECT_EQ(cuda::cuda_target_arch(""), "sm_80");
  EXPECT_EQ(cuda::cuda_target_arch("sm_90a"), "sm_90a");
  EXPECT_THROW(cuda::cuda_target_arch("compute_90"), exec::ExecError);
  EXPECT_THROW(cuda::cuda_target_arch("90"), exec::ExecError);
}

// Device code may ask for its target arch's arch-specific variant (wgmma: sm_90a), nothing
// else.
TEST(CudaToolkit, DeviceCodeMayNeedTheArchSpecificVariantOfItsTarget) {
  EXPECT_EQ(cuda::cuda_device_arch("sm_90", ""), "sm_90");
  EXPECT_EQ(cuda::cuda_device_arch("sm_90", "sm_90a"), "sm_90a");
  EXPECT_EQ(cuda::cuda_device_arch("sm_90a", "sm_90a"), "sm_90a");
  try {
    cuda::cuda_device_arch("sm_80", "sm_90a");
    FAIL() << "sm_80 cannot run sm_90a code";
  } catch (const exec::ExecError& e) {
    EXPECT_NE(std::string(e.what()).find("needs sm_90a, which a target of -arch=sm_80 cannot run; "
                                         "compile for a target of -arch=sm_90"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tilec
