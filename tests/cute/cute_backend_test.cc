// The CuTe variant: chosen on kind `cuda` by the key `cute` (the cuda backend declines
// it), reusing the cuda pipeline object; its device code includes CuTe and compiles
// through NVRTC with the CUTLASS include path for sm_80 and sm_90, and ptxas accepts the
// PTX (a representative set: a CuTe compile takes NVRTC about 10 s here); without the
// headers nvrtc is unavailable to it and `auto` falls back to source, saying why.
#include "../engine/test_support.h"

#include "tilec/backend/module.h"
#include "tilec/cuda/backend.h"
#include "tilec/cute/backend.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/engine/initialize.h"
#include "tilec/exec/cuda_backends.h"
#include "tilec/exec/cuda_toolkit.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"

#include <fstream>
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
  const char* file;
  const char* arch;
};

class CuteExamples : public ::testing::TestWithParam<CuteCase> {};

TEST_P(CuteExamples, CompileThroughNvrtcWithCutlassAndPtxasAcceptsThePtx) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (auto reason = exec::nvrtc_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  const CuteCase& c = GetParam();
  std::string target = std::string("cuda -arch=") + c.arch + " -keys=cuda,gpu,cute";
  Kernel kernel = compile(ir::parse_kernel_file(example(c.file)), target, std::nullopt, "auto");
  EXPECT_EQ(kernel.context().name(), "cute");
  EXPECT_EQ(kernel.execution_backend(), "nvrtc");
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("#include <cute/tensor.hpp>"), std::string::npos) << src;
  EXPECT_NE(src.find(cute::cutlass_include_dir()->string()), std::string::npos)
      << "the header directory is part of the source, so of the cache key";
  fs::path ptx = kernel.library_path().parent_path() / "device.ptx";
  ASSERT_TRUE(fs::exists(ptx));
  EXPECT_NE(read_text(ptx).find(std::string(".target ") + c.arch), std::string::npos);
  fs::path ptxas = exec::cuda_toolkit_root() / "bin" / "ptxas";
  if (!fs::exists(ptxas)) GTEST_SKIP() << "no ptxas at " << ptxas;
  exec::ProcessResult checked = exec::run_process(
      {ptxas.string(), std::string("-arch=") + c.arch, ptx.string(), "-o", ptx.string() + ".o"});
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
}

INSTANTIATE_TEST_SUITE_P(Representative, CuteExamples,
                         ::testing::Values(CuteCase{"gemm.py", "sm_80"},
                                           CuteCase{"gemm.py", "sm_90"},
                                           CuteCase{"edge_tiles.py", "sm_90"}),
                         [](const ::testing::TestParamInfo<CuteCase>& info) {
                           std::string name =
                               fs::path(info.param.file).stem().string() + "_" + info.param.arch;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

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
