// The CuTe variant: chosen on kind `cuda` by the key `cute` (the cuda backend declines
// it), reusing the cuda pipeline object; its device code includes CuTe and compiles
// through NVRTC with the CUTLASS include path, and ptxas accepts the PTX: every example
// for sm_90, the gemms and edge tiles for sm_80 (a CuTe compile takes NVRTC seconds).
// Its own T.gemm is a cute::gemm on a TiledMMA (tensor-core mma.sync in the PTX for
// float16/bfloat16, UniversalFMA for float32) whose C partition is the accumulator's
// layout (tilec's closed form of it is checked against CuTe in cute_partition_test);
// shapes it cannot tile go to the cuda backend's gemms. Without the headers nvrtc is
// unavailable to it and `auto` falls back to source, saying why.
#include "../engine/test_support.h"
#include "build_paths.h"

#include "tilec/backend/module.h"
#include "tilec/cuda/backend.h"
#include "tilec/cute/backend.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/engine/initialize.h"
#include "tilec/exec/cuda_backends.h"
#include "tilec/exec/cuda_toolkit.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCuteTarget = "cuda -arch=sm_90 -keys=cuda,gpu,cute";

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string example(const char* name) {
  return (fs::path(TILEC_SOURCE_DIR) / "examples" / name).string();
}

TEST(CuteVariant, SelectedByTheCuteKeyAndSharesTheCudaPipeline) {
  initialize();
  backend::BackendModulePtr cute = backend::get_backend("cute");
  backend::BackendModulePtr cuda = backend::get_backend("cuda");
  target::Target with_key = target::Target::parse(kCuteTarget);
  target::Target plain = target::Target::parse("cuda -arch=sm_90");
  EXPECT_TRUE(cute->matches(with_key));
  EXPECT_FALSE(cute->matches(plain));
  EXPECT_FALSE(cuda->matches(with_key));
  // The same pipeline: cuda's name and passes, in order.
  const auto& passes = cute->get_pipeline(with_key).passes();
  const auto& cuda_passes = cuda->get_pipeline(plain).passes();
  EXPECT_EQ(cute->get_pipeline(with_key).name(), cuda::cuda_pipeline().name());
  ASSERT_EQ(passes.size(), cuda_passes.size());
  for (size_t i = 0; i < passes.size(); ++i) EXPECT_EQ(passes[i].name, cuda_passes[i].name);
  auto context = backend::create_backend_context(with_key, std::nullopt, "source");
  EXPECT_EQ(context.name(), "cute");
  auto plain_context = backend::create_backend_context(plain, std::nullopt, "source");
  EXPECT_EQ(plain_context.name(), "cuda");
}

struct CuteCase {
  std::string file;
  std::string arch;
  std::map<std::string, std::string> defines;
  std::string in_source;  // must appear in the device source ("" none)
  std::string in_ptx;     // must appear in NVRTC's PTX ("" none)
};

// Every example at sm_90; at sm_80 the gemms (both tensor-core atoms, the FMA one, B
// transposed) and the edge tiles. One CuTe compile takes NVRTC several seconds.
std::vector<CuteCase> cute_cases() {
  std::vector<CuteCase> cases;
  std::vector<std::string> files;
  for (const auto& item : fs::directory_iterator(fs::path(TILEC_SOURCE_DIR) / "examples"))
    if (item.path().extension() == ".py") files.push_back(item.path().filename().string());
  std::sort(files.begin(), files.end());
  const std::string mma = "mma.sync.aligned.m16n8k16.row.col.f32.";
  for (const auto& f : files) {
    CuteCase c{f, "sm_90", {}, "", ""};
    if (f == "gemm.py")
      c = {f, "sm_90", {}, "tilec_cute::gemm_ss<0, 2, 2, 64, 64, 32, 0, 0, 0>", mma + "f16"};
    cases.push_back(c);
  }
  cases.push_back({"gemm.py",
                   "sm_80",
                   {},
                   "tilec_cute::gemm_ss<0, 2, 2, 64, 64, 32, 0, 0, 0>",
                   mma + "f16.f16.f32"});
  cases.push_back({"gemm.py",
                   "sm_80",
                   {{"dtype", "bfloat16"}},
                   "tilec_cute::gemm_ss<1, ",
                   mma + "bf16.bf16.f32"});
  // gemm_nt accumulates in its own dtype: in float32 it is a CuTe gemm with B transposed.
  cases.push_back({"gemm_nt.py", "sm_80", {{"dtype", "float32"}}, "0, 1, 0>(", ""});
  cases.push_back({"gemm_fp32.py", "sm_80", {}, "tilec_cute::gemm_ss<2, ", ""});
  cases.push_back({"edge_tiles.py", "sm_80", {}, "", ""});
  return cases;
}

std::string case_name(const CuteCase& c) {
  std::string name = fs::path(c.file).stem().string();
  for (const auto& [k, v] : c.defines) name += "_" + v;
  name += "_" + c.arch;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

void PrintTo(const CuteCase& c, std::ostream* out) {
  *out << case_name(c);
}

class CuteExamples : public ::testing::TestWithParam<CuteCase> {};

TEST_P(CuteExamples, CompileThroughNvrtcWithCutlassAndPtxasAcceptsThePtx) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (auto reason = exec::nvrtc_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  const CuteCase& c = GetParam();
  std::string target = "cuda -arch=" + c.arch + " -keys=cuda,gpu,cute";
  Kernel kernel = compile(ir::parse_kernel_file(example(c.file.c_str()), c.defines), target,
                          std::nullopt, "auto");
  EXPECT_EQ(kernel.context().name(), "cute");
  EXPECT_EQ(kernel.execution_backend(), "nvrtc");
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("#include <cute/tensor.hpp>"), std::string::npos) << src;
  EXPECT_NE(src.find(cute::cutlass_include_dir()->string()), std::string::npos)
      << "the header directory is part of the source, so of the cache key";
  if (!c.in_source.empty()) {
    EXPECT_NE(src.find(c.in_source), std::string::npos) << src;
  }
  fs::path ptx = kernel.library_path().parent_path() / "device.ptx";
  ASSERT_TRUE(fs::exists(ptx));
  std::string ptx_text = read_text(ptx);
  EXPECT_NE(ptx_text.find(".target " + c.arch), std::string::npos);
  if (!c.in_ptx.empty()) {
    EXPECT_NE(ptx_text.find(c.in_ptx), std::string::npos) << c.in_ptx;
  }
  fs::path ptxas = exec::cuda_toolkit_root() / "bin" / "ptxas";
  if (!fs::exists(ptxas)) GTEST_SKIP() << "no ptxas at " << ptxas;
  exec::ProcessResult checked = exec::run_process(
      {ptxas.string(), "-arch=" + c.arch, ptx.string(), "-o", ptx.string() + ".o"});
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
}

INSTANTIATE_TEST_SUITE_P(Examples, CuteExamples, ::testing::ValuesIn(cute_cases()),
                         [](const ::testing::TestParamInfo<CuteCase>& info) {
                           return case_name(info.param);
                         });

// The layout the gemm's TiledMMA gives its accumulator, as the lowered IR records it.
std::string layout_of(const Kernel& kernel, const std::string& fragment) {
  for (const auto& f : kernel.lowered().functions()) {
    auto it = f->attrs.find("tilec.layout." + fragment);
    if (it != f->attrs.end()) return std::get<std::string>(it->second);
  }
  return "";
}

Kernel compile_source(const std::string& text) {
  return compile(ir::parse_kernel_source(text), kCuteTarget, std::nullopt, "source");
}

std::string gemm_kernel(int threads, int bm, int bn, int bk, const char* dtype, const char* accum) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((128, 128), "{3}"), B: T.Tensor((128, 128), "{3}"), C: T.Tensor((128, 128), "float32")):
    with T.Kernel(T.ceildiv(128, {1}), T.ceildiv(128, {0}), threads={5}) as (bx, by):
        A_s = T.alloc_shared(({0}, {2}), "{3}")
        B_s = T.alloc_shared(({2}, {1}), "{3}")
        C_l = T.alloc_fragment(({0}, {1}), "{4}")
        T.clear(C_l)
        for k in T.Pipelined(T.ceildiv(128, {2}), num_stages=2):
            T.copy(A[by * {0}, k * {2}], A_s)
            T.copy(B[k * {2}, bx * {1}], B_s)
            T.gemm(A_s, B_s, C_l)
        for i, j in T.Parallel({0}, {1}):
            C_l[i, j] = C_l[i, j] * 2.0
        T.copy(C_l, C[by * {0}, bx * {1}])
)PY",
                     bm, bn, bk, dtype, accum, threads);
}

TEST(CuteGemm, TheAccumulatorTakesTheTiledMmaPartitionAndItsLoopsFollowIt) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel = compile_source(gemm_kernel(128, 64, 64, 32, "float16", "float32"));
  std::string layout = layout_of(kernel, "C_l");
  EXPECT_NE(layout.find("cute TiledMMA SM80_16x8x16_F32F16F16F32_TN over a 2x2 grid of warps "
                        "over 128 threads"),
            std::string::npos)
      << layout;
  EXPECT_NE(layout.find("32 registers per thread"), std::string::npos) << layout;
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("make_tiled_mma(typename AtomOf<Atom>::type{}"), std::string::npos);
  EXPECT_NE(src.find("partition_shape_C(tiled_mma"), std::string::npos);
  EXPECT_NE(src.find("gemm(tiled_mma, tCrA, tCrB, tCrC)"), std::string::npos);
  // The operands are this iteration's stage of the cp.async pipeline's 2-stage tiles.
  EXPECT_NE(src.find("tilec_cute::gemm_ss<0, 2, 2, 64, 64, 32, 0, 0, 0>(&A_s[k % 2 * 64 * 32], "
                     "&B_s[k % 2 * 32 * 64], &C_l[0], tilec_cute::flat_thread())"),
            std::string::npos)
      << src;
  // T.clear and the element-wise update run over the thread's 32 registers of the
  // partition; the copy out moves its 16 runs of 2 consecutive columns as 8-byte vectors.
  size_t loops = 0;
  for (const char* r : {"r", "r_1", "r_2", "r_3", "r_4", "r_5", "r_6", "r_7"}) {
    if (src.find(fmt::format("for (int32_t {0} = 0; {0} < 32; ++{0})", r)) != std::string::npos)
      ++loops;
  }
  EXPECT_EQ(loops, 2u) << src;
  EXPECT_NE(src.find("for (int32_t q = 0; q < 16; ++q)"), std::string::npos) << src;
  EXPECT_NE(src.find("*(uint2*)(C + "), std::string::npos) << src;
  // The barriers around the gemm: before it (the copies into A_s/B_s) and before the next
  // iteration's copies (the gemm read them).
  EXPECT_NE(src.find("__syncthreads();"), std::string::npos);
}

TEST(CuteGemm, Float32UsesUniversalFma) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel = compile_source(gemm_kernel(128, 64, 64, 16, "float32", "float32"));
  EXPECT_NE(layout_of(kernel, "C_l")
                .find("UniversalFMA<float, float, float, float> over a 8x16 "
                      "grid of threads"),
            std::string::npos)
      << layout_of(kernel, "C_l");
  EXPECT_NE(kernel.device_source().find("tilec_cute::gemm_ss<2, 8, 16, 64, 64, 16,"),
            std::string::npos);
}

TEST(CuteGemm, ShapesTheTiledMmaCannotTileGoToAnotherGemm) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  struct Case {
    int threads, bm, bn, bk;
    const char* dtype;
    const char* accum;
    const char* why;
  };
  for (const Case& c : {Case{96, 64, 64, 32, "float16", "float32", "3 warps tile no grid"},
                        Case{128, 64, 64, 8, "float16", "float32", "K not a multiple of 16"},
                        Case{120, 64, 64, 32, "float16", "float32", "not whole warps"},
                        Case{128, 64, 64, 32, "float16", "float16", "a float16 accumulator"}}) {
    SCOPED_TRACE(c.why);
    Kernel kernel = compile_source(gemm_kernel(c.threads, c.bm, c.bn, c.bk, c.dtype, c.accum));
    EXPECT_EQ(layout_of(kernel, "C_l").find("cute TiledMMA"), std::string::npos)
        << layout_of(kernel, "C_l");
    EXPECT_EQ(kernel.device_source().find("tilec_cute::gemm_ss"), std::string::npos);
  }
}

TEST(CuteGemm, PlainCudaKeepsItsOwnGemm) {
  Kernel kernel =
      compile(ir::parse_kernel_source(gemm_kernel(128, 64, 64, 32, "float16", "float32")),
              "cuda -arch=sm_80", std::nullopt, "source");
  EXPECT_EQ(kernel.context().name(), "cuda");
  EXPECT_EQ(kernel.device_source().find("tilec_cute"), std::string::npos);
}

TEST(CuteVariant, Float16GoesThroughCuteNumericTypes) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel =
      compile(ir::parse_kernel_file(example("gemm.py")), kCuteTarget, std::nullopt, "source");
  EXPECT_NE(kernel.device_source().find("cute::half_t::bitcast"), std::string::npos);
  EXPECT_NE(kernel.device_source().find("extern \"C\" __global__"), std::string::npos);
}

TEST(CuteVariant, WithoutTheHeadersAutoFallsBackToSourceAndCodegenSaysWhy) {
  testing::ScopedEnv missing("TILEC_CUTLASS_INCLUDE", "/nonexistent/cutlass/include");
  EXPECT_NE(cute::cutlass_unavailable_reason().find("/nonexistent/cutlass/include"),
            std::string::npos);
  initialize();
  auto context =
      backend::create_backend_context(target::Target::parse(kCuteTarget), std::nullopt, "auto");
  EXPECT_EQ(context.execution_backend().name, "source");
  try {
    compile(ir::parse_kernel_file(example("vector_add.py")), kCuteTarget, std::nullopt, "auto");
    FAIL() << "generating CuTe code without the headers must fail";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("scripts/setup.sh"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilec
