// Every WGSL the webgpu tests generate -- each example's kernels, in float32 and, where the
// file has a `dtype` constant, float16, and the kernels of kernels.h -- also compiles with Dawn's
// Tint (PyPI dawn-python), the WGSL compiler browsers use, so what runs on wgpu-native's naga is
// not a naga dialect. Skips, saying why, without python3, dawn-python or a device for Dawn.
#include "../build_paths.h"
#include "../engine/test_support.h"

#include "kernels.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"

#include <fstream>
#include <regex>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

class TintCheck : public testing::EngineTest {};

TEST_F(TintCheck, EveryExampleWgslCompilesWithTint) {
  fs::path dir = testing::test_temp_dir("tint");
  std::vector<std::string> argv = {
      "python3", (fs::path(TILEC_SOURCE_DIR) / "tests" / "webgpu" / "tint_check.py").string()};
  static const std::regex dtype_constant(R"((^|\n)dtype\s*=\s*["'])");
  std::vector<fs::path> files;
  for (const auto& item : fs::directory_iterator(fs::path(TILEC_SOURCE_DIR) / "examples"))
    if (item.path().extension() == ".py") files.push_back(item.path());
  std::sort(files.begin(), files.end());
  int printed = 0;
  for (const auto& file : files) {
    std::stringstream text;
    text << std::ifstream(file).rdbuf();
    std::vector<std::map<std::string, std::string>> variants = {{}};
    if (std::regex_search(text.str(), dtype_constant)) variants.push_back({{"dtype", "float16"}});
    for (const auto& defines : variants) {
      ir::IRModule mod = ir::parse_kernel_file(file.string(), defines);
      std::string source;
      try {
        // Device code only: what the wgpu backend would compile.
        source = compile(mod, "webgpu", std::nullopt, "wgpu").device_source();
      } catch (const std::exception& e) {
        // A kernel the backend refuses (tests/webgpu checks the refusals) has no WGSL.
        std::string what = e.what();
        if (what.find("webgpu codegen") != std::string::npos ||
            what.find("unavailable") != std::string::npos || what.find("wgpu") != std::string::npos)
          continue;
        throw;
      }
      fs::path out = dir / (file.stem().string() + (defines.empty() ? "" : "_f16") + ".wgsl");
      std::ofstream(out) << source;
      argv.push_back(out.string());
      ++printed;
    }
  }
  // And the kernels the webgpu tests run apart from the examples.
  std::vector<std::pair<const char*, const char*>> kernels = testing::webgpu_kernels();
  kernels.push_back({"scalars", testing::kScalarsKernel});
  kernels.push_back({"division", testing::kDivisionKernel});
  for (const auto& [name, kernel_source] : kernels) {
    std::string source;
    try {
      source = compile(ir::parse_kernel_source(kernel_source), "webgpu", std::nullopt, "wgpu")
                   .device_source();
    } catch (const exec::ExecError& e) {
      GTEST_SKIP() << e.what();
    }
    fs::path out = dir / (std::string("test_") + name + ".wgsl");
    std::ofstream(out) << source;
    argv.push_back(out.string());
    ++printed;
  }
  if (printed == 0) GTEST_SKIP() << "no WGSL was generated (no wgpu device to build on)";
  exec::ProcessResult result = exec::run_process(argv);
  if (result.exit_code == 77 || result.exit_code == 127)
    GTEST_SKIP() << "Tint is not usable here: " << result.output;
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n') >= printed, true)
      << result.output;
}

}  // namespace
}  // namespace tilec
