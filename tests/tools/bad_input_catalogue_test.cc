// The bad-input catalogue: mistakes a user makes with targets, kernels, options,
// arguments, data files and plugins, each run through the real `tilec` executable.
// Every case asserts the exit status and the key words of the message, that the
// process ended normally (never a signal), and that an error is printed once in
// the CLI's one format ("tilec: error: ..."), so none of these can regress silently.
#include "../cli_support.h"
#include "build_paths.h"
#include "runnable_backends.h"
#include "tilec/engine/initialize.h"
#include "tilec/ir/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace tilec {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;
  std::vector<std::string> args;  // $K/ = catalogue kernels, $EX/ = examples, $D/ = data dir
  int exit_code;
  std::vector<std::string> keywords;     // all must appear in the output
  bool with_plugins = false;             // TILEC_PLUGIN_PATH = the test plugins (one broken)
  std::vector<std::string> absent = {};  // none of these may appear
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

// One directory per test process: CTest runs the cases in parallel, and a case must
// never read a data file another process is rewriting.
fs::path data_dir() {
  return fs::path(TILEC_BINARY_DIR) / "test-tmp" / ("catalogue-" + std::to_string(::getpid()));
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A .npy v1.0 file with the given header dict and `data_bytes` zero bytes of data.
std::string npy_with_header(const std::string& dict, size_t data_bytes) {
  std::string header = dict;
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  out.append(data_bytes, '\0');
  return out;
}

// The data files the cases read, written once per test process.
void write_data_files() {
  fs::path d = data_dir();
  fs::create_directories(d);
  ir::HostTensor x(ir::DataType::Float32(), {1000});
  ir::write_npy((d / "x.npy").string(), x.view());
  ir::HostTensor bad_index(ir::DataType::Int32(), {1000});
  for (int64_t i = 0; i < 1000; ++i) bad_index.set(i, i == 537 ? 5000 : i);
  ir::write_npy((d / "i_bad.npy").string(), bad_index.view());
  ir::HostTensor i64(ir::DataType::Int64(), {1000});
  ir::write_npy((d / "i_int64.npy").string(), i64.view());
  ir::HostTensor short_index(ir::DataType::Int32(), {999});
  ir::write_npy((d / "i_short.npy").string(), short_index.view());
  write_bytes(d / "not_npy.npy", "this is a text file, not a NumPy array\n");
  write_bytes(
      d / "big_endian.npy",
      npy_with_header("{'descr': '>i4', 'fortran_order': False, 'shape': (1000,), }", 4000));
  write_bytes(
      d / "fortran.npy",
      npy_with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (10, 100), }", 4000));
  write_bytes(d / "truncated.npy",
              npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (1000,), }", 10));
  write_bytes(d / "object.npy",
              npy_with_header("{'descr': '|O', 'fortran_order': False, 'shape': (1000,), }", 8000));
  std::string v9 = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 16);
  v9[6] = char(9);
  write_bytes(d / "version9.npy", v9);
  write_bytes(d / "a_plain_file", "not a directory\n");
}

std::string expand(const std::string& arg) {
  std::string out = arg;
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t at; (at = out.find(from)) != std::string::npos;) out.replace(at, from.size(), to);
  };
  replace("$K/", std::string(TILEC_SOURCE_DIR) + "/tests/tools/catalogue/");
  replace("$EX/", std::string(TILEC_SOURCE_DIR) + "/examples/");
  replace("$D/", data_dir().string() + "/");
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class BadInputCatalogue : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() { write_data_files(); }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(data_dir(), ec);
  }
  void SetUp() override {
    if (GetParam().with_plugins)
      setenv("TILEC_PLUGIN_PATH", TILEC_CLI_PLUGIN_DIR, 1);
    else
      unsetenv("TILEC_PLUGIN_PATH");
  }
  void TearDown() override { unsetenv("TILEC_PLUGIN_PATH"); }
};

// The value after `option` in args, if any.
std::optional<std::string> option_value(const std::vector<std::string>& args,
                                        const std::string& option) {
  auto it = std::find(args.begin(), args.end(), option);
  if (it == args.end() || std::next(it) == args.end()) return std::nullopt;
  return *std::next(it);
}

// Why this machine cannot run the case's --target (with its --execution-backend), when
// resolving it says none of its execution backends is available here (opencl in a
// sanitized process, for one); such a case is skipped with that reason, not failed.
std::optional<std::string> unrunnable_target_reason(const std::vector<std::string>& args) {
  std::optional<std::string> target = option_value(args, "--target");
  if (!target) return std::nullopt;
  // The kinds of backends that are optional at configure time, which this build may lack.
  const std::vector<std::pair<std::string, std::string>> optional_kinds = {
      {"opencl", "tilec.opencl"}};  // -DTILEC_OPENCL=OFF
  std::string kind = target->substr(0, target->find(' '));
  for (const auto& [optional_kind, module] : optional_kinds) {
    if (kind != optional_kind) continue;
    bool built = false;
    for (const auto& builtin : tilec::builtin_modules()) built |= builtin.import_path == module;
    if (!built) return "this build has no " + module + " module (configured off)";
  }
  std::vector<std::string> resolve = {"resolve", "--target", *target};
  if (auto exec_backend = option_value(args, "--execution-backend")) {
    resolve.push_back("--execution-backend");
    resolve.push_back(*exec_backend);
  }
  exec::ProcessResult resolved = testing::tilec_cli(resolve);
  if (resolved.exit_code == 0 ||
      resolved.output.find("not available on this machine") == std::string::npos)
    return std::nullopt;
  return resolved.output;
}

TEST_P(BadInputCatalogue, FailsCleanlyAndSaysWhy) {
  const Case& c = GetParam();
  std::vector<std::string> args;
  for (const auto& a : c.args) args.push_back(expand(a));
  if (auto reason = unrunnable_target_reason(args)) GTEST_SKIP() << *reason;
  exec::ProcessResult result = testing::tilec_cli(args);
  EXPECT_LT(result.exit_code, 128) << "killed by a signal:\n" << result.output;
  EXPECT_EQ(result.exit_code, c.exit_code) << result.output;
  for (const auto& word : c.keywords)
    EXPECT_NE(result.output.find(expand(word)), std::string::npos)
        << "missing '" << word << "' in:\n"
        << result.output;
  for (const auto& word : c.absent)
    EXPECT_EQ(result.output.find(word), std::string::npos) << "unexpected '" << word << "' in:\n"
                                                           << result.output;
  if (c.exit_code == 2) {
    EXPECT_EQ(count(result.output, "tilec: error: "), 1u) << result.output;
    EXPECT_EQ(result.output.find("error: error:"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find(": error: tilec"), std::string::npos) << result.output;
  }
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // ---------------------------------------------------------------- targets
      {"UnknownTargetKind",
       {"run", "$EX/vector_add.py", "--target", "nosuch"},
       2,
       {"unknown target kind 'nosuch'"}},
      {"MisspelledTargetKindSuggestsTheNearest",
       {"resolve", "--target", "cuad"},
       2,
       {"cuad", "cuda"}},
      {"UnknownTargetAttribute", {"resolve", "--target", "c -nosuch_attr=1"}, 2, {"nosuch_attr"}},
      {"MalformedTargetJson", {"resolve", "--target", "{\"kind\": "}, 2, {"JSON"}},
      {"UnknownExecutionBackend",
       {"resolve", "--target", "c", "--execution-backend", "nosuch"},
       2,
       {"nosuch", "native"}},
      {"UnknownHostTarget", {"resolve", "--target", "c", "--target-host", "nosuch"}, 2, {"nosuch"}},
      // An -mcpu the compiler does not know: one error naming it and what to do, checked
      // before the build (never cc1's or LLVM's raw CPU lists, once per source file).
      {"BadMcpuOnCIsOneClearError",
       {"run", "$EX/vector_add.py", "--target", "c -mcpu=no_such_cpu_xyz"},
       2,
       {"the C compiler", "does not know CPU 'no_such_cpu_xyz'", "-march=native"},
       false,
       {"valid arguments to", "cc1", "C compilation of the generated kernel failed"}},
      {"MisspelledMcpuOnCNamesTheNearest",
       {"run", "$EX/vector_add.py", "--target", "c -mcpu=skylakx"},
       2,
       {"does not know CPU 'skylakx'", "nearest names it knows: skylake"},
       false,
       {"valid arguments to", "cc1"}},
#ifdef TILEC_HAVE_LLVM
      {"BadMcpuOnLlvmIsOneClearError",
       {"run", "$EX/vector_add.py", "--target", "llvm -mcpu=no_such_cpu_xyz"},
       2,
       {"LLVM", "does not know CPU 'no_such_cpu_xyz'", "drop -mcpu"},
       false,
       {"not a recognized processor"}},
      {"MisspelledMcpuOnLlvmNamesTheNearest",
       {"run", "$EX/vector_add.py", "--target", "llvm -mcpu=skylakx"},
       2,
       {"does not know CPU 'skylakx'", "nearest names it knows: skylake"},
       false,
       {"not a recognized processor"}},
#endif
      // ---------------------------------------------------------------- kernels
      {"MissingKernelFile",
       {"check", "$K/does_not_exist.py"},
       2,
       {"does_not_exist.py", "no such file"}},
      {"DirectoryAsKernelFile",
       {"run", "$K/"},
       2,
       {"is a directory", "kernel file"},
       {},
       {"no functions"}},
      {"ModuleWithoutFunctions", {"run", "$K/no_functions.py"}, 2, {"no_functions.py"}},
      {"SyntaxErrorHasOnePrefixAndALocation",
       {"check", "$K/syntax_error.py"},
       2,
       {"tilec: error: $K/syntax_error.py:7:"}},
      {"SyntaxErrorInRunHasOnePrefix",
       {"run", "$K/syntax_error.py", "--target", "c"},
       2,
       {"tilec: error: $K/syntax_error.py:7:"}},
      {"IntegerTrueDivision", {"check", "$K/int_division.py"}, 2, {"int_division.py:8:", "//"}},
      {"WriteToReadOnlyTensor",
       {"check", "$K/read_only_write.py"},
       2,
       {"read_only_write.py:8:", "read"}},
      {"UndefinedName",
       {"check", "$K/undefined_name.py"},
       2,
       {"undefined_name.py:8:", "missing_name"}},
      {"UnsupportedConstruct",
       {"compile", "$K/while_loop.py", "--target", "c"},
       2,
       {"while_loop.py:7:", "while"}},
      {"InterpErrorsHaveThePrefixAndTheFile",
       {"interp", "$K/out_of_range.py"},
       2,
       {"tilec: error: $K/out_of_range.py:9:", "'A'", "[16]", "outside its shape [16]"}},
      {"CheckReportsOutOfRangeBeforeCompiledCodeRuns",
       {"run", "$K/out_of_range.py", "--target", "c", "--check"},
       2,
       {"tilec: error: $K/out_of_range.py:9:", "outside its shape [16]"}},
      {"UninitializedFragmentReadIsReported",
       {"run", "$K/uninitialized_fragment.py", "--target", "c", "--check"},
       2,
       {"tilec: error: $K/uninitialized_fragment.py:11:", "read of 'acc' at index [0]",
        "before anything wrote it"}},
      {"BarrierUnderAThreadDependentCondition",
       {"check", "$K/barrier_in_thread_branch.py"},
       2,
       {"tilec: error: $K/barrier_in_thread_branch.py:9:13:",
        "inside an if whose condition depends on the thread index (line 8)"}},
      {"BarrierUnderAThreadDependentConditionOnRun",
       {"run", "$K/barrier_in_thread_branch.py", "--target", "c", "--check"},
       2,
       {"line 9:13", "a barrier", "inside an if whose condition depends on the thread index"}},
      // With the device's __local memory (2 MB on PoCL) the fragments are staged there and
      // the kernel runs; with 16 KiB they fit neither registers nor shared memory.
      {"FragmentsAboveThePrivateMemoryBudget",
       {"run", "$K/replicated_fragment_too_large.py", "--target",
        "opencl -max_shared_memory_per_block=16384", "--check"},
       2,
       {"tilec: error: $K/replicated_fragment_too_large.py:11:", "73728 bytes of private memory",
        "above the 32768 bytes", "'A_local': 36864 bytes per thread", "'B_local'", "replicated",
        "private_bytes_per_thread"}},
      // ---------------------------------------------------------------- options
      {"DefineWithoutEquals", {"check", "$EX/vector_add.py", "-D", "N"}, 2, {"no '='", "-D"}},
      {"DefineOfAnUnknownConstant",
       {"check", "$EX/vector_add.py", "-D", "Q=4"},
       2,
       {"no constant 'Q'", "N"}},
      {"DefineNotAnInteger",
       {"check", "$EX/vector_add.py", "-D", "N=abc"},
       2,
       {"expected an integer"}},
      {"DefineOutOfRange",
       {"check", "$EX/vector_add.py", "-D", "N=99999999999999999999999"},
       2,
       {"out of range"},
       false,
       {"expected an integer"}},
      {"DefineOfAFloatConstantWithText",
       {"check", "$EX/bias_gelu.py", "-D", "dtype=notatype"},
       2,
       {"notatype"}},
      {"ShapeOfAnUnknownName",
       {"run", "$K/symbolic_add.py", "--target", "c", "--shape", "Q=4"},
       2,
       {"no symbolic dimension or scalar parameter 'Q'", "--shape accepts: N"}},
      {"ShapeOfAModuleConstant",
       {"run", "$EX/vector_add.py", "--target", "c", "--shape", "N=128"},
       2,
       {"'N' is a module constant", "-D N=128"}},
      {"ShapeNegative",
       {"run", "$K/symbolic_add.py", "--target", "c", "--shape", "N=-4"},
       2,
       {"must not be negative"},
       false,
       {"HostTensor"}},
      {"ShapeZeroForADimension",
       {"interp", "$K/symbolic_add.py", "--shape", "N=0"},
       2,
       {"must be positive"}},
      {"ShapeNotAnInteger",
       {"interp", "$K/symbolic_add.py", "--shape", "N=ten"},
       2,
       {"'ten' is not an integer"}},
      {"ShapeFloatForAFloatScalar",
       {"run", "$K/scale_by_alpha.py", "--target", "c", "--check", "--shape", "alpha=0.25",
        "--shape", "n=3"},
       0,
       {"scale: ok"}},
      {"ShapeNegativeFloatForAFloatScalar",
       {"interp", "$K/scale_by_alpha.py", "--shape", "alpha=-2e-1"},
       0,
       {"scale.B float32[64]"}},
      {"ShapeFloatForAnIntegerScalar",
       {"run", "$K/scale_by_alpha.py", "--target", "c", "--shape", "n=1.5"},
       2,
       {"--shape n=1.5",
        "'n' (scalar parameter of 'scale', dtype int32) takes an integer, not 1.5"}},
      {"ShapeFloatForADimension",
       {"interp", "$K/symbolic_add.py", "--shape", "N=2.5"},
       2,
       {"'N' (symbolic dimension, dtype int32) takes an integer, not 2.5"}},
      {"ShapeExponentForADimensionSaysTheDigits",
       {"interp", "$K/symbolic_add.py", "--shape", "N=1e5"},
       2,
       {"takes an integer, not 1e5", "--shape N=100000"}},
      // A dimension its dtype cannot hold, and tensors no memory holds: refused at once,
      // before any input is generated.
      {"ShapeTooLargeForAnInt32Dimension",
       {"run", "$K/symbolic_add.py", "--target", "c", "--shape", "N=3000000000"},
       2,
       {"--shape N=3000000000", "dtype int32", "holds at most 2147483647",
        "T.dynamic(\"N\", \"int64\")"}},
      {"ShapeTooLargeForAnInt32DimensionInInterp",
       {"interp", "$K/symbolic_add.py", "--shape", "N=3000000000"},
       2,
       {"holds at most 2147483647"}},
      {"TensorsLargerThanMemorySayHowMuchTheyNeed",
       // block_N keeps the grid under the 2^31 - 1 blocks every target runs along an axis.
       {"run", "$EX/vector_add.py", "--target", "c", "-D", "N=1000000000000000", "-D",
        "block_N=1048576", "--check"},
       2,
       {"the arguments of 'vector_add' need", "PiB", "A float32[1000000000000000]",
        "--check keeps a copy", "available"}},
      {"DefineExponentForAnIntegerSaysTheDigits",
       {"run", "$EX/vector_add.py", "--target", "c", "-D", "N=1e11"},
       2,
       {"-D N=1e11", "write the integer in digits, -D N=100000000000"}},
      {"DefineFractionForAnIntegerSaysHowToWriteOne",
       {"run", "$EX/vector_add.py", "--target", "c", "-D", "N=1.5"},
       2,
       {"-D N=1.5", "decimal digits, e.g. -D N=4096"}},
      {"ShapeNotANumber",
       {"interp", "$K/scale_by_alpha.py", "--shape", "alpha=1.5x"},
       2,
       {"'1.5x' is not an integer or a number", "--shape alpha=1.5"}},
      {"ShapeMissingForASymbolicDim",
       {"run", "$K/symbolic_add.py", "--target", "c"},
       2,
       {"symbolic dim 'N'", "--shape"}},
      {"SeedNotANumber", {"run", "$EX/vector_add.py", "--seed", "abc"}, 2, {"--seed"}},
      {"UnknownOption", {"run", "$EX/vector_add.py", "--frobnicate"}, 2, {"--frobnicate"}},
      {"UnknownSubcommand", {"rnu", "$EX/vector_add.py"}, 2, {"unknown command 'rnu'", "run"}},
      {"UnknownEmitKind", {"compile", "$EX/vector_add.py", "--emit", "nosuch"}, 2, {"nosuch"}},
      // ---------------------------------------------------------------- arguments and results
      {"RunWithoutCheckClaimsNoVerdict",
       {"run", "$EX/vector_add.py", "--target", "c", "--json"},
       0,
       {"\"checked\": false"},
       false,
       {"max_abs_err", "\"ok\""}},
      {"RunWithoutCheckTextSaysNotChecked",
       {"run", "$EX/vector_add.py", "--target", "c"},
       0,
       {"ran, not checked"},
       false,
       {"max_abs_err"}},
      {"RandomIndexDataStaysInRange",
       {"run", "$K/gather.py", "--target", "c", "--check"},
       0,
       {"gather: ok"}},
      // ---------------------------------------------------------------- data files
      {"InputsOutOfRangeIndexReportedByTheInterpreter",
       {"run", "$K/gather.py", "--target", "c", "--check", "--inputs", "I=$D/i_bad.npy"},
       2,
       {"gather.py:12:", "'X'", "[5000]", "[1000]"}},
      // The compiled bounds-checked build reports the same access without the interpreter.
      {"BoundsCheckReportsOutOfRangeIndexDataOnC",
       {"run", "$K/gather.py", "--target", "c", "--bounds-check", "--inputs", "I=$D/i_bad.npy"},
       2,
       {"tilec: error: $K/gather.py:12:", "load 'X' at index [5000] is outside its shape [1000]",
        "bounds-checked build"}},
#ifdef TILEC_HAVE_LLVM  // without LLVM, `--target llvm` is refused (CliResolve)
      {"BoundsCheckReportsOutOfRangeIndexDataOnLlvmJit",
       {"run", "$K/gather.py", "--target", "llvm", "--execution-backend", "llvm_jit",
        "--bounds-check", "--inputs", "I=$D/i_bad.npy"},
       2,
       {"tilec: error: $K/gather.py:12:", "load 'X' at index [5000] is outside its shape [1000]"}},
      {"BoundsCheckReportsOutOfRangeIndexDataOnLlvmNative",
       {"run", "$K/gather.py", "--target", "llvm", "--execution-backend", "native",
        "--bounds-check", "--inputs", "I=$D/i_bad.npy"},
       2,
       {"tilec: error: $K/gather.py:12:", "load 'X' at index [5000] is outside its shape [1000]"}},
#endif
      {"BoundsCheckWithInRangeDataRuns",
       {"run", "$K/gather.py", "--target", "c", "--bounds-check", "--check"},
       0,
       {"gather: ok"}},
      {"BoundsCheckOnATargetWithoutItIsRefused",
       {"compile", "$K/gather.py", "--target", "opencl", "--execution-backend", "opencl",
        "--bounds-check"},
       2,
       {"bounds checking is not supported on target 'opencl", "--target llvm"}},
      {"InputsMissingFile",
       {"run", "$K/gather.py", "--inputs", "X=$D/nope.npy"},
       2,
       {"nope.npy", "does not exist"}},
      {"InputsNotANpyFile",
       {"run", "$K/gather.py", "--inputs", "X=$D/not_npy.npy"},
       2,
       {"not_npy.npy", "magic"}},
      {"InputsWrongDtype",
       {"run", "$K/gather.py", "--target", "c", "--inputs", "I=$D/i_int64.npy"},
       2,
       {"int64[1000]", "int32[1000]", "'I'"}},
      {"InputsWrongShape",
       {"run", "$K/gather.py", "--target", "c", "--inputs", "I=$D/i_short.npy"},
       2,
       {"int32[999]", "int32[1000]"}},
      {"InputsUnknownParameter",
       {"run", "$K/gather.py", "--target", "c", "--inputs", "Z=$D/x.npy"},
       2,
       {"no tensor parameter 'Z'", "X, I, Y"}},
      {"InputsWithoutEquals", {"run", "$K/gather.py", "--inputs", "$D/x.npy"}, 2, {"NAME=FILE"}},
      {"InputsBigEndian",
       {"run", "$K/gather.py", "--inputs", "I=$D/big_endian.npy"},
       2,
       {"big-endian"}},
      {"InputsFortranOrder",
       {"run", "$K/gather.py", "--inputs", "X=$D/fortran.npy"},
       2,
       {"Fortran order"}},
      {"InputsTruncated",
       {"run", "$K/gather.py", "--inputs", "I=$D/truncated.npy"},
       2,
       {"truncated"}},
      {"InputsObjectDtype",
       {"run", "$K/gather.py", "--inputs", "I=$D/object.npy"},
       2,
       {"unsupported dtype '|O'"}},
      {"InputsUnsupportedVersion",
       {"run", "$K/gather.py", "--inputs", "X=$D/version9.npy"},
       2,
       {"version 9.0"}},
      {"SaveIntoAPlainFile",
       {"run", "$EX/vector_add.py", "--target", "c", "--save", "$D/a_plain_file/out"},
       2,
       {"--save", "a_plain_file"}},
      // ---------------------------------------------------------------- plugins
      {"BrokenPluginIsListedWithItsCause",
       {"backends"},
       0,
       {"tilec_plugin_cli_broken  FAILED", "nothing it registered was kept"},
       true},
      {"TargetOfABrokenPluginIsUnknown",
       {"resolve", "--target", "clibroken"},
       2,
       {"unknown target kind 'clibroken'"},
       true},
      {"PluginKindWithoutPluginPath",
       {"resolve", "--target", "cligood"},
       2,
       {"unknown target kind 'cligood'", "TILEC_PLUGIN_PATH"}},
  };
  return all;
}

// docs/semantics.md "Integer widths", on every runnable backend: a loop variable past
// int32 is int64 (never wrapped), a grid no target runs and a shape its dtype cannot
// hold are errors naming the extent and the limit, and a grid axis past one target's
// limit (max_grid_y 65535 on cuda, hip, metal and webgpu) is refused there and run
// elsewhere.
std::vector<Case> integer_width_cases() {
  std::vector<Case> out;
  for (const auto& b : testing::runnable_backends()) {
    std::vector<std::string> on = {"--target", b.target_string(), "--execution-backend",
                                   b.execution_backend};
    auto args = [&](std::vector<std::string> head) {
      head.insert(head.end(), on.begin(), on.end());
      return head;
    };
    if (b.target == "webgpu") {
      out.push_back({"HugeLoopVariableIsInt64On_" + b.name(),
                     args({"run", "$K/loop_past_int32.py", "--check"}),
                     2,
                     {"uses int64", "WGSL has no 64-bit integers"}});
    } else {
      out.push_back({"HugeLoopVariableIsInt64On_" + b.name(),
                     args({"run", "$K/loop_past_int32.py", "--check"}),
                     0,
                     {"loop_past_int32: ok"}});
    }
    out.push_back(
        {"HugeGridIsACompileTimeErrorOn_" + b.name(),
         args({"run", "$K/grid_past_int32.py"}),
         2,
         {"grid_past_int32.py:10:", "grid extent 2147483664 along x", "at most 2147483647"}});
    bool y_limited =
        b.target == "cuda" || b.target == "hip" || b.target == "metal" || b.target == "webgpu";
    if (y_limited) {
      out.push_back(
          {"GridYPastTheTargetLimitOn_" + b.name(),
           args({"run", "$K/grid_y_70000.py"}),
           2,
           {"grid_y_70000.py:10:", "70000 blocks along y", "at most 65535", "max_grid_y"}});
    } else {
      out.push_back({"GridYPastTheTargetLimitOn_" + b.name(),
                     args({"run", "$K/grid_y_70000.py", "--check"}),
                     0,
                     {"grid_y_70000: ok"}});
    }
    // The CPU host runs every block of a grid through one int64 count: three axes of
    // 2e9 blocks (each within int32) overflow it, refused at run time rather than wrapped.
    if (b.target == "c" || b.target == "llvm") {
      out.push_back({"GridTotalPastInt64On_" + b.name(),
                     args({"run", "$K/grid_total_past_int64.py", "--shape", "n=2000000000"}),
                     2,
                     {"kernel 'grid_total_past_int64'", "total block count overflows int64",
                      "2000000000 blocks along z"}});
    }
    // WGSL refuses symbolic shapes (64-bit offsets) before any shape is bound.
    out.push_back(
        {"HugeShapeForAnInt32DimensionOn_" + b.name(),
         args({"run", "$K/symbolic_add.py", "--shape", "N=3000000000"}), 2,
         b.target == "webgpu"
             ? std::vector<std::string>{"64-bit arithmetic", "WGSL has no 64-bit"}
             : std::vector<std::string>{"--shape N=3000000000", "holds at most 2147483647"}});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(IntegerWidths, BadInputCatalogue,
                         ::testing::ValuesIn(integer_width_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

INSTANTIATE_TEST_SUITE_P(Cli, BadInputCatalogue, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

TEST(BadInputCatalogueSize, HasAtLeastFortyCases) {
  EXPECT_GE(cases().size(), 40u);
}

}  // namespace
}  // namespace tilec
