// The on-disk kernel cache end to end: miss then hit without running the
// compiler, corrupt entries reported and rebuilt, the bypass switch, and
// several processes compiling the same kernel into one fresh cache at once.
#include "build_paths.h"
#include "test_support.h"
#include "tilec/exec/process.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <thread>

namespace tilec {
namespace {

namespace fs = std::filesystem;
using testing::EngineTest;
using testing::ScopedEnv;

constexpr const char* kSource = R"(import tilelang.language as T

N = 256
dtype = "float32"


@T.prim_func
def twice(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            B[bx * 64 + i] = A[bx * 64 + i] * 2
)";

ir::IRModule twice_module(const std::string& dtype = "float32") {
  ir::ParseOptions options;
  options.defines = {{"dtype", dtype}};
  return ir::parse_kernel_source(kSource, options);
}

std::vector<fs::path> entries(const fs::path& cache_dir) {
  std::vector<fs::path> found;
  for (const auto& item : fs::directory_iterator(cache_dir)) {
    if (item.path().filename().string()[0] != '.') found.push_back(item.path());
  }
  return found;
}

// The hidden .build-* directories of builds in progress or kept after failing.
std::vector<fs::path> build_dirs(const fs::path& cache_dir) {
  std::vector<fs::path> found;
  for (const auto& item : fs::directory_iterator(cache_dir))
    if (item.path().filename().string().rfind(".build-", 0) == 0) found.push_back(item.path());
  return found;
}

bool works(const Kernel& kernel) {
  return testing::run_and_compare(kernel, twice_module().functions()[0]).ok;
}

class KernelCacheTest : public EngineTest {
 protected:
  // A compiler wrapper that logs every invocation, so tests can tell whether a
  // compile ran the C compiler.
  void install_logging_compiler() {
    fs::path script = cache_dir_.parent_path() / (cache_dir_.filename().string() + "-cc.sh");
    log_ = script.string() + ".log";
    std::ofstream(script) << "#!/bin/sh\necho \"$@\" >> '" << log_ << "'\nexec cc \"$@\"\n";
    fs::permissions(script, fs::perms::owner_all);
    cc_env_.emplace("CC", script.string());
  }
  int compiler_runs() const {
    std::ifstream in(log_);
    int runs = 0;
    for (std::string line; std::getline(in, line);)
      runs += line.find("-shared") != std::string::npos;
    return runs;
  }
  void TearDown() override {
    cc_env_.reset();
    if (!log_.empty()) {
      fs::remove(log_);
      fs::remove(log_.substr(0, log_.size() - 4));
    }
    EngineTest::TearDown();
  }

  std::string log_;
  std::optional<ScopedEnv> cc_env_;
};

TEST_F(KernelCacheTest, MissThenHitWithoutRunningTheCompiler) {
  install_logging_compiler();
  Kernel first = compile(twice_module(), "c", std::nullopt, "native");
  EXPECT_FALSE(first.cache_hit());
  EXPECT_EQ(compiler_runs(), 1);
  Kernel second = compile(twice_module(), "c", std::nullopt, "native");
  EXPECT_TRUE(second.cache_hit());
  EXPECT_EQ(compiler_runs(), 1);
  EXPECT_EQ(first.cache_key(), second.cache_key());
  EXPECT_EQ(first.host_source(), second.host_source());
  EXPECT_EQ(first.device_source(), second.device_source());
  EXPECT_EQ(second.library_path().parent_path(), cache_dir_ / second.cache_key());
  EXPECT_TRUE(works(second));
  ASSERT_EQ(entries(cache_dir_).size(), 1u);
  EXPECT_TRUE(fs::exists(cache_dir_ / second.cache_key() / "meta.json"));
}

TEST(KernelCacheKey, CoversEveryFieldIncludingTheGeneratedCode) {
  CacheKeyFields base{0x1234,      "c -keys=cpu", "c -keys=cpu", "native",
                      "cc 12 -O3", "{}",          "0.1.0",       sha256_hex("int main;")};
  std::vector<CacheKeyFields> changed(8, base);
  changed[0].module_hash = 0x1235;
  changed[1].target = "c -keys=cpu -mcpu=znver4";
  changed[2].target_host = "llvm -keys=cpu";
  changed[3].execution_backend = "other";
  changed[4].backend_identity = "cc 13 -O3";
  changed[5].pass_config = R"({"k":1})";
  changed[6].tilec_version = "0.2.0";
  // Same module and target, but a pass or code generator changed what it emits.
  changed[7].code_hash = sha256_hex("int main2;");
  for (const auto& fields : changed) EXPECT_NE(fields.key(), base.key()) << fields.canonical_text();
  EXPECT_EQ(base.key(), CacheKeyFields(base).key());
}

TEST_F(KernelCacheTest, DifferentModulesAndTargetsGetDifferentKeys) {
  Kernel f32 = compile(twice_module(), "c", std::nullopt, "native");
  Kernel f16 = compile(twice_module("float16"), "c", std::nullopt, "native");
  Kernel tuned = compile(twice_module(), "c -mcpu=x86-64-v2", std::nullopt, "native");
  EXPECT_NE(f32.cache_key(), f16.cache_key());
  EXPECT_NE(f32.cache_key(), tuned.cache_key());
  EXPECT_FALSE(tuned.cache_hit());
  EXPECT_EQ(entries(cache_dir_).size(), 3u);
}

TEST_F(KernelCacheTest, FailedBuildDirectoriesOlderThanADayAreRemovedByTheNextBuild) {
  fs::path stale = cache_dir_ / ".build-0123456789ab-1-0-deadbeef";
  fs::path recent = cache_dir_ / ".build-0123456789ab-2-0-cafef00d";
  fs::create_directories(stale);
  fs::create_directories(recent);
  std::ofstream(stale / "device.c") << "int broken(";
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(48));
  Kernel built = compile(twice_module(), "c", std::nullopt, "native");
  EXPECT_FALSE(built.cache_hit());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(recent));  // may be another process's build still running
}

void expect_reported_and_rebuilt(const fs::path& cache_dir, const std::string& key) {
  ::testing::internal::CaptureStderr();
  Kernel rebuilt = compile(twice_module(), "c", std::nullopt, "native");
  std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(rebuilt.cache_hit());
  EXPECT_NE(report.find("kernel cache entry"), std::string::npos) << report;
  EXPECT_NE(report.find("corrupt"), std::string::npos) << report;
  EXPECT_NE(report.find(key), std::string::npos) << report;
  EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 1) << report;
  EXPECT_TRUE(works(rebuilt));

  ::testing::internal::CaptureStderr();
  Kernel hit = compile(twice_module(), "c", std::nullopt, "native");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(hit.cache_hit());
  EXPECT_TRUE(works(hit));
  EXPECT_EQ(entries(cache_dir).size(), 1u);
}

TEST_F(KernelCacheTest, TruncatedLibraryIsReportedAndRebuilt) {
  std::string key = compile(twice_module(), "c", std::nullopt, "native").cache_key();
  fs::path library = cache_dir_ / key / "kernel.so";
  fs::resize_file(library, fs::file_size(library) / 2);
  expect_reported_and_rebuilt(cache_dir_, key);
}

TEST_F(KernelCacheTest, GarbledMetadataIsReportedAndRebuilt) {
  std::string key = compile(twice_module(), "c", std::nullopt, "native").cache_key();
  std::ofstream(cache_dir_ / key / "meta.json", std::ios::trunc) << "{\"format\": 1, \"key\": ";
  expect_reported_and_rebuilt(cache_dir_, key);
}

TEST_F(KernelCacheTest, MissingMetadataIsReportedAndRebuilt) {
  std::string key = compile(twice_module(), "c", std::nullopt, "native").cache_key();
  fs::remove(cache_dir_ / key / "meta.json");
  expect_reported_and_rebuilt(cache_dir_, key);
}

TEST_F(KernelCacheTest, UnloadableLibraryWithMatchingChecksumIsRebuilt) {
  std::string key = compile(twice_module(), "c", std::nullopt, "native").cache_key();
  fs::path entry = cache_dir_ / key;
  const std::string garbage = "not a shared library";
  std::ofstream(entry / "kernel.so", std::ios::trunc) << garbage;
  auto meta = nlohmann::json::parse(std::ifstream(entry / "meta.json"));
  meta["artifact_size"] = garbage.size();
  meta["artifact_sha256"] = sha256_hex(garbage);
  std::ofstream(entry / "meta.json", std::ios::trunc) << meta.dump();
  ::testing::internal::CaptureStderr();
  Kernel rebuilt = compile(twice_module(), "c", std::nullopt, "native");
  std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(rebuilt.cache_hit());
  EXPECT_NE(report.find("cannot load kernel library"), std::string::npos) << report;
  EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 1) << report;
  EXPECT_TRUE(works(rebuilt));
  EXPECT_TRUE(compile(twice_module(), "c", std::nullopt, "native").cache_hit());
}

TEST_F(KernelCacheTest, SwappedLibraryFailsTheChecksum) {
  std::string key = compile(twice_module(), "c", std::nullopt, "native").cache_key();
  std::string other = compile(twice_module("float16"), "c", std::nullopt, "native").cache_key();
  fs::copy_file(cache_dir_ / other / "kernel.so", cache_dir_ / key / "kernel.so",
                fs::copy_options::overwrite_existing);
  ::testing::internal::CaptureStderr();
  Kernel rebuilt = compile(twice_module(), "c", std::nullopt, "native");
  std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(rebuilt.cache_hit());
  EXPECT_NE(report.find(key), std::string::npos) << report;
  EXPECT_TRUE(works(rebuilt));
}

TEST_F(KernelCacheTest, PassConfigIsPartOfTheKey) {
  transform::register_pass_config_key("tilec.test.engine_flag", transform::PassConfigType::kBool,
                                      false, "a key declared by the engine tests");
  Kernel plain = compile(twice_module(), "c", std::nullopt, "native");
  Kernel flagged =
      compile(twice_module(), "c", std::nullopt, "native", {{"tilec.test.engine_flag", true}});
  EXPECT_NE(plain.cache_key(), flagged.cache_key());
  EXPECT_FALSE(flagged.cache_hit());
  EXPECT_TRUE(works(flagged));
}

TEST_F(KernelCacheTest, UnknownPassConfigKeyIsRejected) {
  try {
    compile(twice_module(), "c", std::nullopt, "native", {{"tilec.no_such_option", true}});
    FAIL() << "expected PassError";
  } catch (const transform::PassError& e) {
    EXPECT_NE(std::string(e.what()).find("tilec.no_such_option"), std::string::npos) << e.what();
  }
}

TEST_F(KernelCacheTest, DisableCacheBypassesIt) {
  ScopedEnv disable("TILEC_DISABLE_CACHE", "1");
  Kernel first = compile(twice_module(), "c", std::nullopt, "native");
  Kernel second = compile(twice_module(), "c", std::nullopt, "native");
  EXPECT_FALSE(first.cache_hit());
  EXPECT_FALSE(second.cache_hit());
  EXPECT_TRUE(entries(cache_dir_).empty());
  EXPECT_TRUE(works(second));
  fs::path private_dir = first.library_path().parent_path();
  EXPECT_TRUE(fs::exists(private_dir));
  { Kernel gone = std::move(first); }
  EXPECT_FALSE(fs::exists(private_dir));  // removed with the last handle
}

// A compiler that always fails: the build errors, and the cache is left as it was.
ScopedEnv failing_compiler(const fs::path& cache_dir) {
  fs::path script = cache_dir.parent_path() / (cache_dir.filename().string() + "-false-cc.sh");
  std::ofstream(script) << "#!/bin/sh\n[ \"$1\" = --version ] && exec cc --version\n"
                        << "echo 'deliberate compiler failure' >&2\nexit 1\n";
  fs::permissions(script, fs::perms::owner_all);
  return ScopedEnv("CC", script.string());
}

std::string compile_error() {
  try {
    compile(twice_module(), "c", std::nullopt, "native");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST_F(KernelCacheTest, FailedBuildPublishesNothingAndTheNextBuildRetries) {
  std::string good_key = compile(twice_module("float16"), "c", std::nullopt, "native").cache_key();
  {
    ScopedEnv not_kept("TILEC_KEEP_FAILED_BUILDS", std::nullopt);
    ScopedEnv cc = failing_compiler(cache_dir_);
    std::string error = compile_error();
    EXPECT_NE(error.find("deliberate compiler failure"), std::string::npos) << error;
    // The build directory is removed (no .build-* is left in the user's cache), and the
    // error says how to keep it...
    EXPECT_NE(error.find("set TILEC_KEEP_FAILED_BUILDS=1"), std::string::npos) << error;
    EXPECT_TRUE(build_dirs(cache_dir_).empty());
  }
  // ...and the entries are exactly those from before: nothing half-built is published.
  std::vector<fs::path> after = entries(cache_dir_);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].filename(), good_key);
  Kernel retried = compile(twice_module(), "c", std::nullopt, "native");
  EXPECT_FALSE(retried.cache_hit());
  EXPECT_TRUE(works(retried));
  EXPECT_EQ(entries(cache_dir_).size(), 2u);
}

TEST_F(KernelCacheTest, FailedBuildIsKeptInTheCacheWhenAskedAndTheErrorSaysWhere) {
  ScopedEnv keep("TILEC_KEEP_FAILED_BUILDS", "1");
  ScopedEnv cc = failing_compiler(cache_dir_);
  std::string error = compile_error();
  std::vector<fs::path> kept = build_dirs(cache_dir_);
  ASSERT_EQ(kept.size(), 1u) << error;
  EXPECT_TRUE(fs::exists(kept[0] / "device.c")) << kept[0];
  EXPECT_NE(error.find("the sources are kept at " + kept[0].string()), std::string::npos) << error;
  EXPECT_NE(error.find("TILEC_KEEP_FAILED_BUILDS is set"), std::string::npos) << error;
}

TEST_F(KernelCacheTest, FailedUncachedBuildLeavesNothingUnderTmpdir) {
  ScopedEnv disable("TILEC_DISABLE_CACHE", "1");
  fs::path tmpdir = cache_dir_ / "tmp";
  fs::create_directories(tmpdir);
  ScopedEnv tmp("TMPDIR", tmpdir.string());
  ScopedEnv not_kept("TILEC_KEEP_FAILED_BUILDS", std::nullopt);
  ScopedEnv cc = failing_compiler(cache_dir_);
  std::string error = compile_error();
  EXPECT_NE(error.find("deliberate compiler failure"), std::string::npos) << error;
  EXPECT_TRUE(entries(tmpdir).empty()) << error;
}

TEST_F(KernelCacheTest, FailedUncachedBuildKeepsItsSourcesUnderTmpdirWhenAsked) {
  ScopedEnv disable("TILEC_DISABLE_CACHE", "1");
  ScopedEnv keep("TILEC_KEEP_FAILED_BUILDS", "1");
  fs::path tmpdir = cache_dir_ / "tmp";
  fs::create_directories(tmpdir);
  ScopedEnv tmp("TMPDIR", tmpdir.string());
  {
    ScopedEnv cc = failing_compiler(cache_dir_);
    std::string error = compile_error();
    EXPECT_NE(error.find((tmpdir / "tilec-build-").string()), std::string::npos) << error;
  }
  std::vector<fs::path> kept = entries(tmpdir);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_TRUE(fs::exists(kept[0] / "device.c")) << kept[0];
  Kernel built = compile(twice_module(), "c", std::nullopt, "native");
  fs::path private_dir = built.library_path().parent_path();
  EXPECT_EQ(private_dir.parent_path(), tmpdir);
  EXPECT_TRUE(works(built));
  { Kernel gone = std::move(built); }
  EXPECT_FALSE(fs::exists(private_dir));  // a successful build's directory goes with it
}

TEST_F(KernelCacheTest, UnwritableCacheDirectoryIsAClearError) {
  fs::path file = cache_dir_ / "plain-file";
  std::ofstream(file) << "x";
  ScopedEnv cache("TILEC_CACHE_DIR", (file / "sub").string());
  try {
    compile(twice_module(), "c", std::nullopt, "native");
    FAIL() << "expected EngineError";
  } catch (const EngineError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("cannot create the kernel cache directory"), std::string::npos);
    EXPECT_NE(message.find("TILEC_DISABLE_CACHE=1"), std::string::npos);
  }
}

TEST_F(KernelCacheTest, XdgCacheHomeIsTheDefaultLocation) {
  ScopedEnv no_override("TILEC_CACHE_DIR", std::nullopt);
  ScopedEnv xdg("XDG_CACHE_HOME", (cache_dir_ / "xdg").string());
  Kernel kernel = compile(twice_module(), "c", std::nullopt, "native");
  EXPECT_EQ(kernel.library_path().parent_path().parent_path(), cache_dir_ / "xdg" / "tilec");
}

TEST_F(KernelCacheTest, ConcurrentProcessesCompilingOneKernelAllSucceed) {
  fs::path source = cache_dir_.parent_path() / (cache_dir_.filename().string() + "-twice.py");
  std::ofstream(source) << kSource;
  constexpr int kProcesses = 4;
  std::vector<exec::ProcessResult> results(kProcesses);
  std::vector<std::thread> threads;
  for (int i = 0; i < kProcesses; ++i) {
    threads.emplace_back([&, i] {
      results[i] = exec::run_process({TILEC_EXECUTABLE, "run", source.string(), "--target", "c",
                                      "--execution-backend", "native", "--check"});
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) {
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("twice: ok"), std::string::npos) << result.output;
  }
  ASSERT_EQ(entries(cache_dir_).size(), 1u);
  for (const auto& item : fs::directory_iterator(cache_dir_)) {
    EXPECT_NE(item.path().filename().string()[0], '.') << "left behind: " << item.path();
  }
  fs::remove(source);
  EXPECT_TRUE(compile(twice_module(), "c", std::nullopt, "native").cache_hit());
}

}  // namespace
}  // namespace tilec
