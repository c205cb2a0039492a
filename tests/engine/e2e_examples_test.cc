// Every kernel in examples/*.py, compiled on every runnable backend (runnable_backends.h: `c` with
// native, `llvm` with llvm_jit and with native), on `opencl` with the opencl execution
// backend (skipped, saying why, without an OpenCL platform), on `cuda` for sm_80 and
// sm_90, on `hip` for gfx90a and gfx1030 and on `metal` with the device emulator (race
// checking on), and on `webgpu` with wgpu-native (bfloat16 refused), matches the reference
// interpreter at the example's own sizes (smaller_sizes() where a target's shared memory
// cannot hold them; edge_tiles.py covers partial tiles) — at its own
// dtype and, when the file has a `dtype` constant, in float16 and bfloat16 too (-D dtype=...).
#include "build_paths.h"
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/exec/execution_backend.h"

#include <fstream>
#include <regex>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kSymbolicDim = 150;

struct ExampleCase {
  fs::path file;
  std::string dtype;  // "" = as written
  std::string name() const {
    std::string stem = file.stem().string();
    return dtype.empty() ? stem : stem + "_" + dtype;
  }
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<ExampleCase> example_cases() {
  std::vector<ExampleCase> cases;
  fs::path dir = fs::path(TILEC_SOURCE_DIR) / "examples";
  if (!fs::is_directory(dir)) return cases;
  std::vector<fs::path> files;
  for (const auto& item : fs::directory_iterator(dir)) {
    if (item.path().extension() == ".py") files.push_back(item.path());
  }
  std::sort(files.begin(), files.end());
  static const std::regex dtype_constant(R"((^|\n)dtype\s*=\s*["'])");
  for (const auto& file : files) {
    cases.push_back({file, ""});
    if (std::regex_search(read_text(file), dtype_constant)) {
      cases.push_back({file, "float16"});
      cases.push_back({file, "bfloat16"});
    }
  }
  return cases;
}

// Examples whose tiles exceed a target's shared memory at their own sizes, with the sizes
// they run at there: reduce_sum's X tile alone is 32 KiB in float32, and the reduction's
// scratch takes it past Metal's and lavapipe's 32 KiB per threadgroup/workgroup
// (tests/metal checks the refusal).
const std::map<std::pair<std::string, std::string>, std::map<std::string, std::string>>&
smaller_sizes() {
  static const std::map<std::pair<std::string, std::string>, std::map<std::string, std::string>>
      sizes = {{{"reduce_sum", "metal"}, {{"block_M", "8"}}},
               {{"reduce_sum", "webgpu"}, {{"block_M", "8"}}}};
  return sizes;
}

std::map<std::string, std::string> defines_for(const ExampleCase& example,
                                               const testing::CpuBackend& backend) {
  std::map<std::string, std::string> defines;
  if (auto found = smaller_sizes().find({example.file.stem().string(), backend.target});
      found != smaller_sizes().end())
    defines = found->second;
  if (!example.dtype.empty()) defines["dtype"] = example.dtype;
  return defines;
}

void PrintTo(const ExampleCase& example, std::ostream* out) {
  *out << example.name();
}

// Every runnable backend, the emulated cuda target once more at sm_90 (its tensor-core
// gemm is mma.sync there too; only the CuTe variant's GMMA differs, which the emulator
// refuses), and the emulated hip target on RDNA (gfx1030: wavefronts of 32, SIMT gemm).
std::vector<testing::CpuBackend> example_backends() {
  std::vector<testing::CpuBackend> out = testing::runnable_backends();
  out.push_back({"cuda", exec::kEmulatorBackendName, "-arch=sm_90"});
  out.push_back({"hip", exec::kEmulatorBackendName, "-mcpu=gfx1030"});
  return out;
}

using ExampleOnBackend = std::tuple<ExampleCase, testing::CpuBackend>;

class Examples : public testing::EngineTest,
                 public ::testing::WithParamInterface<ExampleOnBackend> {
 protected:
  void SetUp() override {
    TILEC_SKIP_UNLESS_RUNNABLE(std::get<1>(GetParam()));
    const auto& [example, backend] = GetParam();
    // WGSL has no bfloat16; the refusal is tests/webgpu's.
    if (backend.target == "webgpu" && example.dtype == "bfloat16")
      GTEST_SKIP() << "webgpu refuses bfloat16 (WGSL has none); tested in tests/webgpu";
    EngineTest::SetUp();
  }
};

TEST_P(Examples, MatchesTheInterpreter) {
  const auto& [example, backend] = GetParam();
  ir::IRModule mod = ir::parse_kernel_file(example.file.string(), defines_for(example, backend));
  Kernel kernel = testing::compile_on(mod, backend);
  EXPECT_EQ(kernel.context().target().kind(), backend.target);
  EXPECT_EQ(kernel.execution_backend(), backend.execution_backend);
  for (const auto& func : mod.functions()) {
    std::map<std::string, int64_t> values;
    for (const auto& var : ir::symbolic_shape_vars(func)) values[var.name()] = kSymbolicDim;
    auto result = testing::run_and_compare(kernel, func, values);
    EXPECT_TRUE(result.ok) << example.file << " " << func->name << ": " << result.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(AllExamples, Examples,
                         ::testing::Combine(::testing::ValuesIn(example_cases()),
                                            ::testing::ValuesIn(example_backends())),
                         [](const ::testing::TestParamInfo<ExampleOnBackend>& info) {
                           std::string name = std::get<0>(info.param).name() + "_" +
                                              std::get<1>(info.param).name();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Examples);

TEST(ExamplesDirectory, HoldsKernels) {
  EXPECT_FALSE(example_cases().empty()) << "no kernels in " << TILEC_SOURCE_DIR << "/examples";
}

}  // namespace
}  // namespace tilec
