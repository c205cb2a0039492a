// Every kernel in examples/*.py, compiled for every backend that can run here (target
// `c` with the `native` execution backend; `opencl` on the `opencl` execution backend,
// skipped with the reason when no OpenCL platform is found), matches the reference
// interpreter at the example's own sizes (edge_tiles.py covers partial tiles) — at its
// own dtype and, when the file has a `dtype` constant, in float16 and bfloat16 too
// (-D dtype=...).
#include "test_support.h"

#include "tilec/exec/execution_backend.h"

#include <fstream>
#include <regex>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kSymbolicDim = 150;

// A backend the examples run on: its target and execution backend.
struct RunOn {
  std::string target;
  std::string execution_backend;
};
const std::vector<RunOn>& backends_to_run() {
  static const std::vector<RunOn> backends = {{"c", "native"}, {"opencl", "opencl"}};
  return backends;
}

struct ExampleCase {
  fs::path file;
  std::string dtype;  // "" = as written
  RunOn on;
  std::string name() const {
    std::string stem = file.stem().string();
    return (dtype.empty() ? stem : stem + "_" + dtype) + "_on_" + on.target;
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
  for (const auto& on : backends_to_run()) {
    for (const auto& file : files) {
      cases.push_back({file, "", on});
      if (std::regex_search(read_text(file), dtype_constant)) {
        cases.push_back({file, "float16", on});
        cases.push_back({file, "bfloat16", on});
      }
    }
  }
  return cases;
}

std::map<std::string, std::string> defines_for(const ExampleCase& example) {
  if (example.dtype.empty()) return {};
  return {{"dtype", example.dtype}};
}

void PrintTo(const ExampleCase& example, std::ostream* out) {
  *out << example.name();
}

class Examples : public testing::EngineTest, public ::testing::WithParamInterface<ExampleCase> {};

TEST_P(Examples, MatchesTheInterpreter) {
  const ExampleCase& example = GetParam();
  auto builder = exec::get_execution_backend(example.on.execution_backend);
  if (!builder->available()) GTEST_SKIP() << builder->unavailable_reason();
  ir::IRModule mod = ir::parse_kernel_file(example.file.string(), defines_for(example));
  Kernel kernel = compile(mod, example.on.target, std::nullopt, example.on.execution_backend);
  EXPECT_EQ(kernel.context().target().kind(), example.on.target);
  for (const auto& func : mod.functions()) {
    std::map<std::string, int64_t> values;
    for (const auto& var : ir::symbolic_shape_vars(func)) values[var.name()] = kSymbolicDim;
    auto result = testing::run_and_compare(kernel, func, values);
    EXPECT_TRUE(result.ok) << example.file << " " << func->name << ": " << result.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(AllExamples, Examples, ::testing::ValuesIn(example_cases()),
                         [](const ::testing::TestParamInfo<ExampleCase>& info) {
                           std::string name = info.param.name();
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
