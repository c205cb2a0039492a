// Every example kernel through the cpu pipeline, the C codegens and the native
// execution backend matches the reference interpreter (edge tiles and 16-bit floats
// included, via the examples that exercise them).
#include "build_paths.h"
#include "run_on_cpu.h"

#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tilec::cpu {
namespace {

class ExampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleTest, MatchesInterpreter) {
  std::string path = std::string(TILEC_SOURCE_DIR) + "/examples/" + GetParam();
  ir::IRModule mod = ir::parse_kernel_file(path);
  ASSERT_FALSE(mod.empty());
  for (const auto& f : mod.functions()) {
    std::map<std::string, int64_t> values;
    for (const auto& v : ir::symbolic_shape_vars(f)) values[v.name()] = 77;  // ragged edges
    testing::CpuRunResult r = testing::run_and_compare(mod, f->name, values, 7);
    EXPECT_TRUE(r.ok) << f->name << ":\n" << r.report << "\n" << r.device_source;
  }
}

std::vector<std::string> example_files() {
  std::vector<std::string> names;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(TILEC_SOURCE_DIR) + "/examples"))
    if (e.path().extension() == ".py") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleTest, ::testing::ValuesIn(example_files()),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.find('.'));
                           return n;
                         });

}  // namespace
}  // namespace tilec::cpu
