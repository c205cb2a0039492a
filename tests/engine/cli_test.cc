// The `tilec compile` and `tilec run` commands as a user runs them: artifacts,
// --check and --json output, and exit status 2 with a clear message on bad input.
#include "../cli_support.h"
#include "test_support.h"

#include "tilec/ir/npy.h"

#include <nlohmann/json.hpp>

namespace tilec {
namespace {

namespace fs = std::filesystem;

using testing::example;
using testing::tilec_cli;

class Cli : public testing::EngineTest {};

TEST_F(Cli, RunCheckPrintsOneLinePerKernel) {
  auto result = tilec_cli({"run", example("edge_tiles.py"), "--check"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find(std::string("scale_add: ok (backend cpu, target ") +
                               testing::kAutoCpuKind),
            std::string::npos)
      << result.output;
  EXPECT_NE(
      result.output.find(std::string("execution backend ") + testing::kAutoCpuExecutionBackend),
      std::string::npos)
      << result.output;
}

TEST_F(Cli, RunJsonReportsEveryField) {
  auto result = tilec_cli({"run", example("vector_add.py"), "--check", "--json", "--seed", "3"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto reports = nlohmann::json::parse(result.output.substr(result.output.find('[')));
  ASSERT_EQ(reports.size(), 1u);
  const auto& report = reports[0];
  for (const char* field : {"function", "backend", "target", "execution_backend", "ok",
                            "max_abs_err", "compile_ms", "cache_hit", "run_ms"}) {
    EXPECT_TRUE(report.contains(field)) << field;
  }
  EXPECT_EQ(report["backend"], "cpu");
  EXPECT_EQ(report["execution_backend"], testing::kAutoCpuExecutionBackend);
  EXPECT_TRUE(report["ok"].get<bool>());
  EXPECT_FALSE(report["cache_hit"].get<bool>());

  auto again = tilec_cli({"run", example("vector_add.py"), "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  auto second = nlohmann::json::parse(again.output.substr(again.output.find('[')));
  EXPECT_TRUE(second[0]["cache_hit"].get<bool>());
}

TEST_F(Cli, CompileWritesArtifactsAndLibrary) {
  fs::path out = cache_dir_ / "out";
  auto result = tilec_cli({"compile", example("gemm.py"), "--target", "c", "-o", out.string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* file : {"lowered.py", "host.c", "device.c", "gemm.so"}) {
    EXPECT_TRUE(fs::exists(out / file)) << file;
  }
  auto printed = tilec_cli({"compile", example("gemm.py"), "--emit", "device", "-D", "M=128"});
  ASSERT_EQ(printed.exit_code, 0) << printed.output;
  EXPECT_NE(printed.output.find("// ---- device"), std::string::npos);
  EXPECT_EQ(printed.output.find("// ---- host"), std::string::npos);
}

// A float scalar parameter takes the number --shape gives it (B = A * alpha + n on
// A = 1 is alpha + n everywhere); an integer one given a fraction is refused.
TEST_F(Cli, ShapeGivesFloatScalarParametersTheirValue) {
  fs::path ones = cache_dir_ / "ones.npy", saved = cache_dir_ / "saved";
  ir::HostTensor a(ir::DataType::Float32(), {64});
  for (int64_t i = 0; i < 64; ++i) a.set(i, 1.0);
  ir::write_npy(ones.string(), a.view());
  std::string kernel = std::string(TILEC_SOURCE_DIR) + "/tests/tools/catalogue/scale_by_alpha.py";
  for (const char* command : {"run", "interp"}) {
    std::vector<std::string> args = {command, kernel, "--shape", "alpha=0.25", "--shape", "n=3"};
    if (std::string(command) == "run")
      args.insert(args.end(), {"--target", "c", "--check", "--inputs", "A=" + ones.string(),
                               "--save", saved.string()});
    auto result = tilec_cli(args);
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }
  ir::HostTensor b = ir::read_npy((saved / "scale.B.npy").string());
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(b.get(i), 3.25) << i;
  // Not given, alpha keeps its default 1.5: 1.5 + 3.
  auto result = tilec_cli({"run", kernel, "--target", "c", "--shape", "n=3", "--inputs",
                           "A=" + ones.string(), "--save", saved.string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  b = ir::read_npy((saved / "scale.B.npy").string());
  EXPECT_EQ(b.get(0), 4.5);
  auto refused = tilec_cli({"run", kernel, "--target", "c", "--shape", "n=1.5"});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("'n' (scalar parameter of 'scale', dtype int32) takes an "
                                "integer, not 1.5"),
            std::string::npos)
      << refused.output;
}

TEST_F(Cli, BadInputExitsWithStatusTwoAndSaysWhy) {
  struct Case {
    std::vector<std::string> args;
    const char* expected;
  };
  std::vector<Case> cases = {
      {{"compile", example("gemm.py"), "--emit", "assembly"}, "unknown artifact 'assembly'"},
      {{"run", example("gemm.py"), "--target", "no_such_kind"}, "no_such_kind"},
      {{"run", example("gemm.py"), "--execution-backend", "nvrtc"}, "nvrtc"},
      {{"run", example("vector_add.py"), "--shape", "N=many"}, "not an integer"},
      {{"run", example("gemm.py"), "-D", "NOT_A_CONSTANT=3"}, "NOT_A_CONSTANT"},
      {{"run", (cache_dir_ / "missing.py").string()}, "missing.py"},
  };
  for (const auto& c : cases) {
    auto result = tilec_cli(c.args);
    EXPECT_EQ(result.exit_code, 2) << c.args[2] << ": " << result.output;
    EXPECT_NE(result.output.find(c.expected), std::string::npos) << result.output;
  }
}

}  // namespace
}  // namespace tilec
