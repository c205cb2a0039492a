// `tilec fmt`, `check`, `interp`, `targets`, `backends` and `resolve` run as a
// script runs them: what they print, their JSON, and exit status 2 with a clear
// message on bad input.
#include "../cli_support.h"
#include "build_paths.h"
#include "tilec/engine/initialize.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace tilec {
namespace {

namespace fs = std::filesystem;

using testing::example;
using testing::tilec_cli;

// A kernel file written for one test, removed afterwards.
class TempKernel {
 public:
  TempKernel(const std::string& name, const std::string& text)
      : path_(fs::path(TILEC_BINARY_DIR) / "test-tmp" / name) {
    fs::create_directories(path_.parent_path());
    std::ofstream(path_) << text;
  }
  ~TempKernel() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

nlohmann::json parse_json(const exec::ProcessResult& result) {
  auto start = result.output.find('{');
  EXPECT_NE(start, std::string::npos) << result.output;
  return nlohmann::json::parse(result.output.substr(start == std::string::npos ? 0 : start));
}

TEST(CliFmt, PrintsACanonicalFormThatIsAFixedPoint) {
  auto first = tilec_cli({"fmt", example("gemm.py")});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("@T.prim_func"), std::string::npos);
  EXPECT_NE(first.output.find("T.gemm("), std::string::npos);
  TempKernel printed("fmt_fixed_point.py", first.output);
  auto second = tilec_cli({"fmt", printed.path()});
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(second.output, first.output);
}

TEST(CliFmt, DefinesOverrideConstants) {
  auto result = tilec_cli({"fmt", example("vector_add.py"), "-D", "N=1000"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("\nN = 1000\n"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("T.Tensor((N,), dtype)"), std::string::npos) << result.output;
}

TEST(CliFmt, KeepsConstantNamesAndComments) {
  auto result = tilec_cli({"fmt", example("edge_tiles.py")});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream in(example("edge_tiles.py"));
  std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(result.output, original);  // the example is already in canonical layout
  EXPECT_NE(result.output.find("block_M"), std::string::npos);
  EXPECT_NE(result.output.find("# "), std::string::npos);
}

TEST(CliDefines, TheLastDefineOfANameWinsInEveryCommand) {
  auto fmt = tilec_cli({"fmt", example("vector_add.py"), "-D", "N=10", "-D", "N=1000"});
  ASSERT_EQ(fmt.exit_code, 0) << fmt.output;
  EXPECT_NE(fmt.output.find("\nN = 1000\n"), std::string::npos) << fmt.output;
  // The lowered IR keeps the partial tile's guard as written (the C codegen folds it
  // into the loop's bounds).
  auto compiled = tilec_cli({"compile", example("vector_add.py"), "--target", "c", "--emit",
                             "lowered", "-D", "N=10", "-D", "N=1000"});
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_NE(compiled.output.find("if idx < 1000:"), std::string::npos) << compiled.output;
}

TEST(CliCheck, AcceptsEveryExample) {
  for (const char* name : {"vector_add.py", "bias_gelu.py", "softmax.py", "gemm.py", "gemm_fp32.py",
                           "gemm_nt.py", "reduce_sum.py", "edge_tiles.py"}) {
    auto result = tilec_cli({"check", example(name)});
    EXPECT_EQ(result.exit_code, 0) << name << ": " << result.output;
    EXPECT_NE(result.output.find("ok: 1 function"), std::string::npos) << result.output;
  }
}

TEST(CliCheck, ReportsLocationSourceLineAndCaret) {
  TempKernel bad("check_while.py",
                 "import tilelang.language as T\n"
                 "\n"
                 "@T.prim_func\n"
                 "def f(A: T.Tensor((16,), \"float32\")):\n"
                 "    with T.Kernel(1) as bx:\n"
                 "        while True:\n"
                 "            A[0] = 1.0\n");
  auto result = tilec_cli({"check", bad.path()});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("check_while.py:6:"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("while True:"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find('^'), std::string::npos) << result.output;
}

TEST(CliCheck, SemanticErrorsNameWhatWasExpected) {
  TempKernel bad("check_shapes.py",
                 "import tilelang.language as T\n"
                 "\n"
                 "@T.prim_func\n"
                 "def f(A: T.Tensor((64, 32), \"float32\"), B: T.Tensor((32, 64), \"float32\"),\n"
                 "      C: T.Tensor((64, 64), \"float32\")):\n"
                 "    with T.Kernel(1) as bx:\n"
                 "        acc = T.alloc_fragment((64, 48), \"float32\")\n"
                 "        T.gemm(A, B, acc)\n"
                 "        T.copy(acc, C)\n");
  auto result = tilec_cli({"check", bad.path()});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("check_shapes.py:8:"), std::string::npos) << result.output;
}

TEST(CliCheck, ListPrintsTheConstructTable) {
  auto text = tilec_cli({"check", "--list"});
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("T.copy(src, dst"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find(" constructs\n"), std::string::npos) << text.output;
  auto json = tilec_cli({"check", "--list", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  auto rows = nlohmann::json::parse(json.output.substr(json.output.find('[')));
  std::set<std::string> roles;
  bool copy_found = false;
  for (const auto& row : rows) {
    roles.insert(row["role"].get<std::string>());
    if (row["name"] == "copy") {
      copy_found = true;
      EXPECT_EQ(row["family"], "tile_ops");
      EXPECT_EQ(row["role"], "statement");
    }
  }
  EXPECT_TRUE(copy_found);
  for (const char* role : {"statement", "value", "allocation", "loop", "with frame", "hint",
                           "module-level declaration", "refused construct"})
    EXPECT_TRUE(roles.count(role)) << role;
  // Without --list a file is needed, and the error says so.
  auto bare = tilec_cli({"check"});
  EXPECT_EQ(bare.exit_code, 2) << bare.output;
  EXPECT_NE(bare.output.find("check needs a kernel file"), std::string::npos) << bare.output;
}

TEST(CliCheck, HardwareOnlyRefusalsNameTheRegisteredTargets) {
  TempKernel tmem("check_tmem.py",
                  "import tilelang.language as T\n"
                  "\n"
                  "@T.prim_func\n"
                  "def f(A: T.Tensor((8, 8), \"float32\")):\n"
                  "    with T.Kernel(1) as bx:\n"
                  "        t = T.alloc_tmem((8, 8), \"float32\")\n");
  auto result = tilec_cli({"check", tmem.path()});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  // Every backend built in registers its kinds, and the message lists them (sorted).
  size_t list = result.output.find("none of tilec's targets (");
  ASSERT_NE(list, std::string::npos) << result.output;
  std::string kinds = result.output.substr(list, result.output.find(')', list) - list);
  for (const char* kind : {"c, ", "cuda", "opencl"})
    EXPECT_NE(kinds.find(kind), std::string::npos) << kind << " in " << kinds;
}

TEST(CliInterp, ChecksumsAreDeterministicPerSeed) {
  auto a = tilec_cli({"interp", example("vector_add.py"), "--seed", "7"});
  auto b = tilec_cli({"interp", example("vector_add.py"), "--seed", "7"});
  auto c = tilec_cli({"interp", example("vector_add.py"), "--seed", "8"});
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_NE(a.output.find("vector_add.C"), std::string::npos) << a.output;
  EXPECT_NE(a.output.find("checksum="), std::string::npos) << a.output;
  EXPECT_EQ(a.output, b.output);
  EXPECT_NE(a.output, c.output);
}

TEST(CliTargets, ListsKindsAndDetectorsInOrder) {
  auto result = tilec_cli({"targets", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto json = parse_json(result);
  std::string text = json.dump();
  std::vector<std::string> kinds = {"c", "llvm", "cuda", "hip", "metal", "webgpu"};
  // opencl is optional at configure time (-DTILEC_OPENCL=OFF); its kind comes with it.
  for (const auto& module : tilec::builtin_modules())
    if (module.import_path == "tilec.opencl") kinds.push_back("opencl");
  for (const auto& kind : kinds) {
    EXPECT_NE(text.find("\"" + kind + "\""), std::string::npos) << kind;
  }
  EXPECT_NE(text.find("max_threads_per_block"), std::string::npos);
  auto plain = tilec_cli({"targets"});
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  // The cuda detector runs before the cpu one.
  auto detectors = plain.output.find("etector");
  ASSERT_NE(detectors, std::string::npos) << plain.output;
  auto cuda_detector = plain.output.find("cuda", detectors);
  auto cpu_detector = plain.output.find("cpu", detectors);
  EXPECT_LT(cuda_detector, cpu_detector) << plain.output;
}

TEST(CliBackends, ListsTheCpuBackendWithItsComponents) {
  auto result = tilec_cli({"backends"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("cpu"), std::string::npos);
  EXPECT_NE(result.output.find("native"), std::string::npos);
  EXPECT_NE(result.output.find("tilec.lower_tile_ops"), std::string::npos) << result.output;
  auto json = tilec_cli({"backends", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_NE(parse_json(json).dump().find("\"cpu\""), std::string::npos);
}

TEST(CliResolve, AutoResolvesToTheCpuHere) {
  auto result = tilec_cli({"resolve", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto json = parse_json(result);
  EXPECT_EQ(json.at("backend"), "cpu");
  EXPECT_EQ(json.at("execution_backend"), testing::kAutoCpuExecutionBackend);
  EXPECT_EQ(json.at("target").get<std::string>().rfind(std::string(testing::kAutoCpuKind) + " ", 0),
            0u)
      << json.dump();
  ASSERT_TRUE(json.contains("target_host"));
#ifdef TILEC_HAVE_LLVM
  // `llvm -mcpu=<host cpu>`, host `llvm`: the seed's default host with LLVM enabled.
  EXPECT_NE(json.at("target").get<std::string>().find("-mcpu="), std::string::npos) << json.dump();
  EXPECT_EQ(json.at("target_host").get<std::string>().rfind("llvm", 0), 0u) << json.dump();
#endif
}

TEST(CliResolve, TheLlvmKindResolvesOnlyWhenLlvmIsBuiltIn) {
  auto result = tilec_cli({"resolve", "--target", "llvm", "--json"});
#ifdef TILEC_HAVE_LLVM
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(parse_json(result).at("execution_backend"), "llvm_jit");
#else
  // Without LLVM, resolving says why at once instead of resolving to native and
  // failing later in device codegen.
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("built without it (-DTILEC_LLVM=OFF)"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("--target c"), std::string::npos) << result.output;
  auto as_host = tilec_cli({"resolve", "--target", "c", "--target-host", "llvm"});
  EXPECT_EQ(as_host.exit_code, 2) << as_host.output;
  EXPECT_NE(as_host.output.find("-DTILEC_LLVM=OFF"), std::string::npos) << as_host.output;
#endif
}

// The --target examples a command's --help offers run on the machine that prints them.
TEST(CliHelp, EveryTargetExampleInTheHelpRunsHere) {
  for (const char* command : {"run", "compile", "bench"}) {
    auto help = tilec_cli({command, "--help"});
    ASSERT_EQ(help.exit_code, 0) << help.output;
    size_t at = help.output.find("--target TEXT");
    ASSERT_NE(at, std::string::npos) << help.output;
    std::string text = help.output.substr(at, help.output.find("--target-host", at) - at);
    std::vector<std::string> examples;
    for (size_t open = text.find('"'); open != std::string::npos;
         open = text.find('"', text.find('"', open + 1) + 1)) {
      size_t close = text.find('"', open + 1);
      if (close == std::string::npos) break;
      examples.push_back(text.substr(open + 1, close - open - 1));
    }
    ASSERT_FALSE(examples.empty()) << text;
    for (const auto& target : examples) {
      auto run = tilec_cli({"run", example("vector_add.py"), "--target", target});
      EXPECT_EQ(run.exit_code, 0) << command << " --help offers --target \"" << target << "\":\n"
                                  << run.output;
    }
  }
}

TEST(CliResolve, BadRequestsExitTwoWithTheAlternatives) {
  auto unknown_kind = tilec_cli({"resolve", "--target", "no_such_kind"});
  EXPECT_EQ(unknown_kind.exit_code, 2);
  EXPECT_NE(unknown_kind.output.find("no_such_kind"), std::string::npos) << unknown_kind.output;
  auto unknown_exec = tilec_cli({"resolve", "--execution-backend", "nope"});
  EXPECT_EQ(unknown_exec.exit_code, 2);
  EXPECT_NE(unknown_exec.output.find("native"), std::string::npos) << unknown_exec.output;
  EXPECT_NE(unknown_exec.output.find("auto"), std::string::npos) << unknown_exec.output;
}

// Every target kind `tilec targets` lists is owned by a backend `tilec backends` lists:
// no kind is advertised that nothing can compile for.
TEST(CliTargets, EveryListedKindHasABackend) {
  auto kinds = parse_json(tilec_cli({"targets", "--json"}));
  auto backends = parse_json(tilec_cli({"backends", "--json"}));
  std::set<std::string> owned;
  for (const auto& backend : backends.at("backends"))
    for (const auto& kind : backend.at("target_kinds")) owned.insert(kind.get<std::string>());
  ASSERT_FALSE(owned.empty()) << backends.dump(2);
  for (const auto& kind : kinds.at("kinds")) {
    std::string name = kind.at("name");
    EXPECT_TRUE(owned.count(name)) << "kind '" << name << "' is listed but no backend owns it";
  }
}

}  // namespace
}  // namespace tilec
