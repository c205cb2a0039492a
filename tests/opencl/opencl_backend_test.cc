// The opencl execution backend: a failed OpenCL build names the generated lines its log
// points at, a machine without an OpenCL platform says why the backend is unavailable,
// and kernels beyond the examples (SIMT gemm shapes and transposes, cross-thread
// reductions of every kind, 2-D thread blocks, edge tiles) match the interpreter on it;
// an integer division by zero inside a kernel is reported as on the CPU targets, and the
// SIMT lowering's errors point at the kernel file with its source line and a caret.
// Tests that need a device skip with the reason when none is found.
#include "../cli_support.h"
#include "../engine/test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/opencl/opencl_execution_backend.h"

#include <fstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

#define SKIP_WITHOUT_OPENCL()                                                 \
  do {                                                                        \
    const auto& backend = opencl::opencl_execution_backend();                 \
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason(); \
  } while (0)

TEST(OpenCLBuildLog, CitesTheGeneratedLines) {
  std::string source = "line one\n  int x = y;\nline three\n";
  std::string log =
      "<source>:2:11: error: use of undeclared identifier 'y'\n"
      "<source>:2:11: error: again\n<source>:3:1: warning: w\n"
      "error: /tmp/pocl/x.cl:1:2: the PoCL spelling\n";
  auto cited = opencl::source_lines_cited_by_build_log(log, source);
  ASSERT_EQ(cited.size(), 2u);
  EXPECT_EQ(cited[0], "line 2:   int x = y;");
  EXPECT_EQ(cited[1], "line 1: line one");
}

TEST(OpenCLBackend, BuildErrorShowsTheOffendingGeneratedLine) {
  SKIP_WITHOUT_OPENCL();
  backend::CodeArtifact device;
  device.format = "opencl";
  device.source =
      "__kernel void k(__global float* a) {\n"
      "  a[0] = 1.0f;\n"
      "  a[1] = not_declared_anywhere;\n"
      "}\n";
  backend::CodeArtifact host;
  host.format = "c";
  fs::path dir = testing::test_temp_dir("opencl-build-error");
  try {
    opencl::opencl_execution_backend()->build(host, device, target::Target::parse("opencl"),
                                              target::Target::parse("c"), dir);
    FAIL() << "expected the build to fail";
  } catch (const exec::ExecError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("OpenCL build of the generated device code failed"), std::string::npos)
        << what;
    EXPECT_NE(what.find("line 3:   a[1] = not_declared_anywhere;"), std::string::npos) << what;
    EXPECT_NE(what.find("not_declared_anywhere"), std::string::npos) << what;
    EXPECT_TRUE(fs::exists(dir / "device.cl")) << "the source is kept for inspection";
  }
}

TEST(OpenCLBackend, UnknownDeviceListsTheDevices) {
  SKIP_WITHOUT_OPENCL();
  try {
    opencl::opencl_execution_backend()->cache_identity(
        target::Target::parse("opencl -device=no-such-device"), target::Target::parse("c"));
    FAIL() << "expected an error";
  } catch (const exec::ExecError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("no OpenCL device matches -device=no-such-device"), std::string::npos);
    EXPECT_NE(what.find("0:0 "), std::string::npos) << what;
  }
}

TEST(OpenCLBackend, NoPlatformMakesItUnavailableWithTheReason) {
  // Removing the platform shows its reason only where the backend was available before
  // (a sanitized process refuses it first for another reason, which the skip prints).
  SKIP_WITHOUT_OPENCL();
  fs::path empty = testing::test_temp_dir("no-icd");
  testing::ScopedEnv vendors("OCL_ICD_VENDORS", empty.string());
  exec::ProcessResult listed = testing::tilec_cli({"backends"});
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("opencl       not available"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("why: no OpenCL platform found"), std::string::npos)
      << listed.output;
  exec::ProcessResult run =
      testing::tilec_cli({"run", testing::example("vector_add.py"), "--target", "opencl"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("execution backend of backend 'opencl'"), std::string::npos)
      << run.output;
  // target="auto" still means the CPU.
  exec::ProcessResult resolved = testing::tilec_cli({"resolve", "--json"});
  EXPECT_EQ(resolved.output.find("opencl"), std::string::npos) << resolved.output;
}

class OpenCLKernels : public testing::EngineTest {
 protected:
  void expect_matches(const std::string& source) {
    SKIP_WITHOUT_OPENCL();
    ir::IRModule mod = ir::parse_kernel_source(source);
    Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
    for (const auto& f : mod.functions()) {
      auto result = testing::run_and_compare(kernel, f, {{"M", 77}, {"N", 45}});
      EXPECT_TRUE(result.ok) << f->name << ": " << result.detail << "\n" << kernel.device_source();
    }
  }
};

std::string gemm_source(const std::string& a_shape, const std::string& b_shape,
                        const std::string& a_tile, const std::string& b_tile,
                        const std::string& a_copy, const std::string& b_copy,
                        const std::string& flags) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor({}, "float32"), B: T.Tensor({}, "float32"), C: T.Tensor((70, 50), "float32")):
    with T.Kernel(T.ceildiv(50, 32), T.ceildiv(70, 16), threads=96) as (bx, by):
        A_s = T.alloc_shared({}, "float32")
        B_s = T.alloc_shared({}, "float32")
        C_l = T.alloc_fragment((16, 32), "float32")
        T.clear(C_l)
        for k in T.Pipelined(T.ceildiv(40, 8), num_stages=2):
            T.copy({}, A_s)
            T.copy({}, B_s)
            T.gemm(A_s, B_s, C_l{})
        T.copy(C_l, C[by * 16, bx * 32])
)PY",
                     a_shape, b_shape, a_tile, b_tile, a_copy, b_copy, flags);
}

TEST_F(OpenCLKernels, SimtGemmWithEdgeTilesAndTransposes) {
  // M = 70, N = 50, K = 40 in 16 x 32 x 8 tiles on 96 threads (5.33 registers each).
  expect_matches(gemm_source("(70, 40)", "(40, 50)", "(16, 8)", "(8, 32)", "A[by * 16, k * 8]",
                             "B[k * 8, bx * 32]", ""));
  expect_matches(gemm_source("(40, 70)", "(50, 40)", "(8, 16)", "(32, 8)", "A[k * 8, by * 16]",
                             "B[bx * 32, k * 8]", ", transpose_A=True, transpose_B=True"));
}

TEST_F(OpenCLKernels, CrossThreadReductionsOfEveryKind) {
  // float32: tree reductions; float16 sums: one thread per row, in the interpreter's order.
  for (const char* dtype : {"float32", "float16"}) {
    for (const char* kind : {"sum", "max", "min", "abssum", "absmax"}) {
      SCOPED_TRACE(std::string(kind) + " " + dtype);
      expect_matches(fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def red(X: T.Tensor((40, 96), "{1}"), Y: T.Tensor((40,), "{1}"), Z: T.Tensor((96,), "{1}")):
    with T.Kernel(1, threads=64) as bx:
        X_l = T.alloc_fragment((40, 96), "{1}")
        Y_l = T.alloc_fragment((40,), "{1}")
        Z_l = T.alloc_fragment((96,), "{1}")
        T.copy(X, X_l)
        T.copy(Y, Y_l)
        T.reduce_{0}(X_l, Y_l, dim=1, clear=False)
        T.reduce_{0}(X_l, Z_l, dim=0)
        T.copy(Y_l, Y)
        T.copy(Z_l, Z)
)PY",
                                 kind, dtype));
    }
  }
}

TEST_F(OpenCLKernels, EitherStandardHostCodegenLaunchesOnTheDevice) {
  SKIP_WITHOUT_OPENCL();
  ir::IRModule mod = ir::parse_kernel_file(testing::example("edge_tiles.py"));
  for (const char* host : {"c", "llvm"}) {
    SCOPED_TRACE(host);
#ifndef TILEC_HAVE_LLVM
    // A build without LLVM (-DTILEC_LLVM=OFF) has only the `c` host codegen.
    if (std::string(host) == "llvm") continue;
#endif
    Kernel kernel = compile(mod, "opencl", std::string(host), "opencl");
    EXPECT_EQ(kernel.context().target_host().kind(), host);
    auto result = testing::run_and_compare(kernel, mod.functions().front());
    EXPECT_TRUE(result.ok) << result.detail;
  }
}

TEST_F(OpenCLKernels, TwoDimensionalThreadBlocksAndSymbolicShapes) {
  expect_matches(R"PY(
import tilelang.language as T

M = T.symbolic("M")
N = T.symbolic("N")

@T.prim_func
def scale(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
    with T.Kernel(T.ceildiv(N, 16), T.ceildiv(M, 16), threads=(16, 4)) as (bx, by):
        A_s = T.alloc_shared((16, 16), "float32")
        B_l = T.alloc_fragment((16, 16), "float32")
        T.copy(A[by * 16, bx * 16], A_s)
        for i, j in T.Parallel(16, 16):
            B_l[i, j] = A_s[j, i] * 0.5 + A_s[i, j]
        T.copy(B_l, B[by * 16, bx * 16])
)PY");
}

constexpr const char* kDivideSource = R"PY(import tilelang.language as T

N = T.symbolic("N")


@T.prim_func
def divide(A: T.Tensor((N,), "int32"), Q: T.Tensor((N,), "int32"), R: T.Tensor((N,), "int32"), d: T.int32):
    with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
        for i in T.Parallel(32):
            if bx * 32 + i < N:
                Q[bx * 32 + i] = A[bx * 32 + i] // d
                R[bx * 32 + i] = A[bx * 32 + i] % d
)PY";

TEST_F(OpenCLKernels, IntegerDivisionByZeroIsReportedAsOnTheCpu) {
  SKIP_WITHOUT_OPENCL();
  ir::IRModule mod = ir::parse_kernel_source(kDivideSource);
  Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
  // The kernel takes its status word as the last parameter.
  EXPECT_NE(kernel.device_source().find("__global int* tilec_status)"), std::string::npos)
      << kernel.device_source();
  std::vector<int32_t> a(100, -7), q(100, 0), r(100, 0);
  try {
    kernel.call_raw({RawTensor{a.data(), {100}}, RawTensor{q.data(), {100}},
                     RawTensor{r.data(), {100}}, int64_t{0}});
    FAIL() << "a zero divisor did not raise";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("integer division by zero"), std::string::npos)
        << e.what();
  }
  // The status word is zeroed per launch: the same kernel runs after the failed call.
  kernel.call_raw({RawTensor{a.data(), {100}}, RawTensor{q.data(), {100}},
                   RawTensor{r.data(), {100}}, int64_t{2}});
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(q[i], -4) << i;  // floor division, as in Python
    EXPECT_EQ(r[i], 1) << i;
  }
  for (int64_t d : {3, -5}) {
    SCOPED_TRACE(d);
    auto result = testing::run_and_compare(kernel, mod.functions()[0], {{"N", 77}, {"d", d}});
    EXPECT_TRUE(result.ok) << result.detail;
  }
}

TEST(OpenCLCodegen, ConstantDivisorsNeedNoStatusWord) {
  SKIP_WITHOUT_OPENCL();
  ir::IRModule mod = ir::parse_kernel_source(R"PY(import tilelang.language as T

@T.prim_func
def halve(A: T.Tensor((64,), "int32"), B: T.Tensor((64,), "int32")):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            B[i] = A[i] // 2 + A[i] % 3
)PY");
  Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
  EXPECT_EQ(kernel.device_source().find("tilec_status"), std::string::npos)
      << kernel.device_source();
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

TEST(OpenCLCli, DivisionByZeroInAKernelIsAnErrorLikeOnC) {
  SKIP_WITHOUT_OPENCL();
  fs::path file = testing::test_temp_dir("div0") / "divide.py";
  std::ofstream(file) << kDivideSource;
  for (const char* target : {"c", "opencl"}) {
    SCOPED_TRACE(target);
    // Without --check: the interpreter would reject the zero divisor first.
    exec::ProcessResult run = testing::tilec_cli(
        {"run", file.string(), "--target", target, "--shape", "N=64", "--shape", "d=0"});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("integer division by zero"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("divide"), std::string::npos) << run.output;
  }
}

TEST_F(OpenCLKernels, Float16ConvertsThroughHalfWhereTheDeviceHasClKhrFp16) {
  SKIP_WITHOUT_OPENCL();
  ir::IRModule mod = ir::parse_kernel_source(R"PY(import tilelang.language as T

@T.prim_func
def axpy(X: T.Tensor((96,), "float16"), Y: T.Tensor((96,), "float16")):
    with T.Kernel(3, threads=32) as bx:
        for i in T.Parallel(32):
            Y[bx * 32 + i] = X[bx * 32 + i] * 3.0 + Y[bx * 32 + i]
)PY");
  Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
  const std::string& src = kernel.device_source();
  // The OpenCL compiler picks the branch from the device's extension list: `half`
  // conversions with cl_khr_fp16, vload_half/vstore_half_rte without (PoCL here).
  size_t with = src.find("#ifdef cl_khr_fp16\n#pragma OPENCL EXTENSION cl_khr_fp16 : enable");
  size_t convert = src.find("as_ushort(convert_half_rte(f))");
  size_t fallback = src.find("vstore_half_rte(f, 0, (__private half*)&h);");
  ASSERT_NE(with, std::string::npos) << src;
  ASSERT_NE(convert, std::string::npos) << src;
  ASSERT_NE(fallback, std::string::npos) << src;
  EXPECT_LT(with, convert);
  EXPECT_LT(convert, src.find("#else", with));
  EXPECT_LT(src.find("#else", with), fallback);
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

TEST(OpenCLCli, SimtErrorsNameTheFileWithTheSourceLineAndACaret) {
  SKIP_WITHOUT_OPENCL();  // `tilec compile` resolves an execution backend first
  fs::path file = testing::test_temp_dir("simt-error") / "bad_layout.py";
  std::ofstream(file) << R"PY(import tilelang.language as T

@T.prim_func
def bad(A: T.Tensor((32, 32), "float32"), C: T.Tensor((32, 32), "float32")):
    with T.Kernel(1, threads=64) as bx:
        A_s = T.alloc_shared((32, 32), "float32")
        C_l = T.alloc_fragment((32, 32), "float32")
        T.copy(A, A_s)
        T.gemm(A_s, A_s, C_l, clear_accum=True)
        for i, j in T.Parallel(32, 32):
            C[i, j] = C_l[j, i]
)PY";
  exec::ProcessResult compiled =
      testing::tilec_cli({"compile", file.string(), "--target", "opencl"});
  EXPECT_EQ(compiled.exit_code, 2) << compiled.output;
  std::string expected =
      "tilec: error: " + file.string() + ":7:9: kernel 'bad': no layout fits fragment 'C_l'";
  EXPECT_EQ(compiled.output.rfind(expected, 0), 0u) << compiled.output;
  EXPECT_NE(
      compiled.output.find("\n        C_l = T.alloc_fragment((32, 32), \"float32\")\n        ^"),
      std::string::npos)
      << compiled.output;
  EXPECT_NE(compiled.output.find("in pass 'gpu.lower_simt'"), std::string::npos) << compiled.output;
  EXPECT_EQ(compiled.output.find("tilec: error:", 1), std::string::npos) << "printed once";
}

}  // namespace
}  // namespace tilec
