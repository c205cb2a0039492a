#include "tilec/exec/native_backend.h"
#include "build_paths.h"

#include "tilec/runtime/dlpack_tensor.h"
#include "tilec/runtime/error.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tilec::exec {
namespace {

namespace fs = std::filesystem;

// Hand-written host and device parts in the shape the cpu backend generates:
// the host entry checks its arguments and runs the device function per block.
constexpr const char* kHostSource = R"(
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdio.h>
typedef struct { int32_t kind; union { DLTensor* tensor; int64_t i; double f; } v; } TilecArg;
typedef int32_t (*TilecTaskFn)(int64_t, int64_t, void*);
typedef struct { int32_t (*parallel_for)(int64_t, TilecTaskFn, void*); int32_t num_threads; const void* device_api; void* device; int32_t device_memory_type; int32_t device_memory_id; void* stream; } TilecRuntimeEnv;
int32_t tilec_abi_version(void) { return 3; }
void vadd_device(int64_t block, const float* a, const float* b, float* c);
typedef struct { const float* a; const float* b; float* c; } Closure;
static int32_t blocks(int64_t begin, int64_t end, void* p) {
  Closure* c = (Closure*)p;
  for (int64_t i = begin; i < end; ++i) vadd_device(i, c->a, c->b, c->c);
  return 0;
}
int32_t vadd(const TilecArg* args, int32_t num_args, const TilecRuntimeEnv* env, char* err, int32_t err_len) {
  if (num_args != 3) { snprintf(err, err_len, "vadd expects 3 arguments, got %d", (int)num_args); return 1; }
  Closure c = { (const float*)args[0].v.tensor->data, (const float*)args[1].v.tensor->data,
                (float*)args[2].v.tensor->data };
  return env->parallel_for(args[0].v.tensor->shape[0] / 16, blocks, &c);
}
)";
constexpr const char* kDeviceSource = R"(
#include <stdint.h>
void vadd_device(int64_t block, const float* a, const float* b, float* c) {
  for (int64_t i = block * 16; i < block * 16 + 16; ++i) c[i] = a[i] + b[i];
}
)";

backend::CodeArtifact c_artifact(std::string source) {
  backend::CodeArtifact artifact;
  artifact.format = "c";
  artifact.source = std::move(source);
  return artifact;
}

// $CC set to `value` for the scope, restored (or unset) after.
class ScopedCC {
 public:
  explicit ScopedCC(const char* value) {
    if (const char* old = std::getenv("CC")) saved_ = old;
    set(value);
  }
  void set(const char* value) { setenv("CC", value, 1); }
  ~ScopedCC() {
    if (saved_) {
      setenv("CC", saved_->c_str(), 1);
    } else {
      unsetenv("CC");
    }
  }

 private:
  std::optional<std::string> saved_;
};

bool runs(const std::string& command) {
  return std::system((command + " --version >/dev/null 2>&1").c_str()) == 0;
}

class NativeBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(TILEC_BINARY_DIR) / "test-tmp" /
           fmt::format("exec-{}-{}",
                       ::testing::UnitTest::GetInstance()->current_test_info()->name(), getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  ExecutionBackendPtr native_ = make_native_execution_backend();
  target::Target target_ = target::Target::parse("c");
};

TEST_F(NativeBackendTest, BuildsLoadsAndRunsHostAndDeviceC) {
  ASSERT_TRUE(native_->available()) << native_->unavailable_reason();
  BuiltModule built =
      native_->build(c_artifact(kHostSource), c_artifact(kDeviceSource), target_, target_, dir_);
  EXPECT_EQ(built.artifact, dir_ / native_->artifact_file_name());
  EXPECT_TRUE(fs::exists(dir_ / "host.c"));
  EXPECT_TRUE(fs::exists(dir_ / "device.c"));
  ASSERT_TRUE(built.module->has_function("vadd"));

  std::vector<float> a(64), b(64), c(64, 0.0f);
  for (int i = 0; i < 64; ++i) a[i] = float(i), b[i] = 0.5f * float(i);
  runtime::DLTensorView ta(a.data(), ir::DataType::Float32(), {64});
  runtime::DLTensorView tb(b.data(), ir::DataType::Float32(), {64});
  runtime::DLTensorView tc(c.data(), ir::DataType::Float32(), {64});
  std::vector<TilecArg> args = {runtime::tensor_arg(ta.get()), runtime::tensor_arg(tb.get()),
                                runtime::tensor_arg(tc.get())};
  built.module->function("vadd")(args);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(c[i], 1.5f * float(i));

  // The artifact reloads on its own, as the kernel cache does.
  auto reloaded = native_->load(built.artifact);
  args.pop_back();
  try {
    reloaded->function("vadd")(args);
    FAIL() << "expected RuntimeError";
  } catch (const runtime::RuntimeError& e) {
    EXPECT_STREQ(e.what(), "kernel 'vadd': vadd expects 3 arguments, got 2");
  }
  EXPECT_THROW(reloaded->function("gemm"), ExecError);
}

TEST_F(NativeBackendTest, CompileErrorCarriesCompilerOutputAndKeptSource) {
  try {
    native_->build(c_artifact("int32_t broken(void) { return undeclared_name; }\n"),
                   backend::CodeArtifact{}, target_, target_, dir_);
    FAIL() << "expected ExecError";
  } catch (const ExecError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("C compilation of the generated kernel failed"), std::string::npos);
    EXPECT_NE(message.find((dir_ / "host.c").string()), std::string::npos) << message;
    EXPECT_NE(message.find("undeclared_name"), std::string::npos) << message;
  }
  EXPECT_TRUE(fs::exists(dir_ / "host.c"));
}

TEST_F(NativeBackendTest, RejectsNonCArtifacts) {
  backend::CodeArtifact ptx;
  ptx.format = "ptx";
  ptx.source = ".version 8.0";
  try {
    native_->build(c_artifact(kHostSource), ptx, target_, target_, dir_);
    FAIL() << "expected ExecError";
  } catch (const ExecError& e) {
    EXPECT_NE(std::string(e.what()).find("format 'ptx'"), std::string::npos) << e.what();
  }
}

TEST_F(NativeBackendTest, MissingCompilerIsUnavailableWithAClearReason) {
  ScopedCC cc("/nonexistent/tilec-test-cc");
  EXPECT_FALSE(native_->available());
  EXPECT_NE(native_->unavailable_reason().find("/nonexistent/tilec-test-cc"), std::string::npos);
  try {
    native_->build(c_artifact(kHostSource), c_artifact(kDeviceSource), target_, target_, dir_);
    FAIL() << "expected ExecError";
  } catch (const ExecError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("could not run the C compiler"), std::string::npos) << message;
    EXPECT_NE(message.find("set $CC"), std::string::npos) << message;
  }
}

TEST_F(NativeBackendTest, CacheIdentityNamesCompilerAndTargetFlags) {
  std::string identity = native_->cache_identity(target_, target_);
  EXPECT_NE(identity.find("-O3"), std::string::npos);
  EXPECT_NE(identity.find("-march=native"), std::string::npos);
  target::Target tuned = target::Target::parse("c -mcpu=x86-64-v3");
  std::string tuned_identity = native_->cache_identity(tuned, tuned);
  EXPECT_NE(tuned_identity.find("-march=x86-64-v3"), std::string::npos);
  EXPECT_NE(identity, tuned_identity);
}

// The whole $CC command, flags included, is part of the cache identity: kernels built
// with `CC="cc -fsanitize=address,undefined"` (scripts/test_asan.sh) never share a cache
// entry with plain ones, which an unsanitized process could not even load.
TEST_F(NativeBackendTest, CacheIdentityKeysOnTheWholeCompilerCommand) {
  ScopedCC cc("cc");
  std::string plain = native_->cache_identity(target_, target_);
  cc.set("cc -fsanitize=address,undefined  -fno-omit-frame-pointer");
  EXPECT_EQ(
      native_compiler_command(),
      (std::vector<std::string>{"cc", "-fsanitize=address,undefined", "-fno-omit-frame-pointer"}));
  std::string sanitized = native_->cache_identity(target_, target_);
  EXPECT_NE(sanitized.find("cc -fsanitize=address,undefined -fno-omit-frame-pointer"),
            std::string::npos)
      << sanitized;
  EXPECT_NE(plain, sanitized);
}

// GCC alone is asked not to turn copy loops into memcpy calls (a flag clang would
// reject); a kernel still builds and loads with either compiler.
TEST_F(NativeBackendTest, OnlyGccGetsTheNoLoopDistributionFlag) {
  const std::string flag = "-fno-tree-loop-distribute-patterns";
  auto has_flag = [&] {
    auto flags = native_compile_flags(target_);
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
  };
  int compilers = 0;
  for (const char* compiler : {"gcc", "clang", "clang-14"}) {
    if (!runs(compiler)) continue;
    ++compilers;
    ScopedCC cc(compiler);
    fs::create_directories(dir_ / compiler);
    EXPECT_EQ(has_flag(), std::string(compiler) == "gcc") << compiler;
    BuiltModule built = native_->build(c_artifact(kHostSource), c_artifact(kDeviceSource), target_,
                                       target_, dir_ / compiler);
    EXPECT_TRUE(built.module->has_function("vadd")) << compiler;
  }
  if (compilers == 0) GTEST_SKIP() << "none of gcc, clang, clang-14 runs here";
}

}  // namespace
}  // namespace tilec::exec
