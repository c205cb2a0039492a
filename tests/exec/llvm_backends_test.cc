// The LLVM paths of the shared execution backends, on hand-written LLVM IR (no cpu
// backend involved): llvm_jit compiles in process and loads the object into ORC's
// LLJIT; native emits an object through LLVM's TargetMachine and links it with the
// system compiler. Both resolve the runtime's argument-check helpers, check the ABI
// version, and reject what they cannot build with a message naming it.
#include "build_paths.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/native_backend.h"
#include "tilec/runtime/dlpack_tensor.h"
#include "tilec/runtime/error.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tilec::exec {
namespace {

namespace fs = std::filesystem;

// A host entry that reports its argument count through the runtime's tilec_rt_fail
// (with the n == 0 call succeeding) and calls libm's tanhf, as generated code does; built
// for runtime ABI version 3 (TILEC_ABI_VERSION).
constexpr const char* kHostIR = R"(
@msg = private constant [19 x i8] c"got %d argument(s)\00"
declare i32 @tilec_rt_fail(ptr, i32, ptr, ...)
declare float @tanhf(float)
define i32 @tilec_abi_version() {
  ret i32 3
}
define i32 @count(ptr %args, i32 %n, ptr %env, ptr %err, i32 %len) {
  %t = call float @tanhf(float 0.0)
  %zero = fcmp oeq float %t, 0.0
  %none = icmp eq i32 %n, 0
  %ok = and i1 %zero, %none
  br i1 %ok, label %done, label %fail
done:
  ret i32 0
fail:
  %r = call i32 (ptr, i32, ptr, ...) @tilec_rt_fail(ptr %err, i32 %len, ptr @msg, i32 %n)
  ret i32 %r
}
)";

backend::CodeArtifact llvm_artifact(std::string source) {
  backend::CodeArtifact artifact;
  artifact.format = "llvm";
  artifact.source = std::move(source);
  return artifact;
}

class LlvmBackends : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
#ifndef TILEC_HAVE_LLVM
    GTEST_SKIP() << "this build has no LLVM (-DTILEC_LLVM=OFF)";
#endif
    dir_ = fs::path(TILEC_BINARY_DIR) / "test-exec" /
           ("llvm_" + GetParam() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }
  ExecutionBackendPtr backend() {
    return get_execution_backend(GetParam());
  }
  fs::path dir_;
  target::Target target_ = target::Target::parse("llvm");
};

TEST_P(LlvmBackends, BuildsLoadsAndResolvesTheRuntimeHelpers) {
  ASSERT_TRUE(is_execution_backend_available(GetParam())) << backend()->unavailable_reason();
  BuiltModule built = backend()->build(llvm_artifact(kHostIR), {}, target_, target_, dir_);
  EXPECT_TRUE(fs::exists(built.artifact));
  EXPECT_EQ(built.artifact.filename(), backend()->artifact_file_name());
  ASSERT_TRUE(built.module->has_function("count"));
  EXPECT_NO_THROW(built.module->function("count")({}));
  TilecArg one = runtime::int_arg(5);
  try {
    built.module->function("count")({&one, 1});
    FAIL() << "expected the kernel's own error";
  } catch (const runtime::RuntimeError& e) {
    EXPECT_STREQ(e.what(), "kernel 'count': got 1 argument(s)");
  }
  // The artifact alone (as the kernel cache keeps it) loads again.
  auto reloaded = backend()->load(built.artifact);
  EXPECT_NO_THROW(reloaded->function("count")({}));
  EXPECT_THROW(reloaded->function("no_such_entry"), ExecError);
}

TEST_P(LlvmBackends, BrokenIrIsAClearError) {
  try {
    backend()->build(llvm_artifact("define i32 @f( {"), {}, target_, target_, dir_);
    FAIL() << "expected an error";
  } catch (const ExecError& e) {
    EXPECT_NE(std::string(e.what()).find("does not parse"), std::string::npos) << e.what();
  }
}

TEST_P(LlvmBackends, AnUnknownCpuIsAClearError) {
  try {
    backend()->build(llvm_artifact(kHostIR), {}, target::Target::parse("llvm -mcpu=no_such_cpu"),
                     target_, dir_);
    if (GetParam() == "native") {
      // native builds the host module for target_host; ask with the bad CPU there.
      backend()->build(llvm_artifact(kHostIR), {}, target_,
                       target::Target::parse("llvm -mcpu=no_such_cpu"), dir_);
    }
    FAIL() << "expected an error";
  } catch (const ExecError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_cpu"), std::string::npos) << e.what();
  }
}

TEST_P(LlvmBackends, CacheIdentityNamesLlvmAndTheHostFeatures) {
  std::string identity = backend()->cache_identity(target_, target_);
  EXPECT_NE(identity.find("LLVM 16"), std::string::npos) << identity;
  // When LLVM names this CPU "generic" the host's features must still be used.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::stringstream text;
  text << cpuinfo.rdbuf();
  if (text.str().find(" avx512f") != std::string::npos) {
    EXPECT_NE(identity.find("+avx512f"), std::string::npos) << identity;
  }
  EXPECT_NE(identity,
            backend()->cache_identity(target::Target::parse("llvm -mcpu=x86-64"), target_));
}

INSTANTIATE_TEST_SUITE_P(Exec, LlvmBackends, ::testing::Values("llvm_jit", "native"),
                         [](const auto& info) { return info.param; });

TEST(LlvmJit, RejectsCSourceNamingWhatToUse) {
#ifndef TILEC_HAVE_LLVM
  GTEST_SKIP() << "this build has no LLVM (-DTILEC_LLVM=OFF)";
#endif
  backend::CodeArtifact c_host;
  c_host.format = "c";
  c_host.source = "int x;";
  target::Target llvm = target::Target::parse("llvm");
  try {
    get_execution_backend("llvm_jit")->build(c_host, {}, llvm, llvm, fs::temp_directory_path());
    FAIL() << "expected an error";
  } catch (const ExecError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("format 'c'"), std::string::npos) << what;
    EXPECT_NE(what.find("native"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tilec::exec
