// The engine's timing and tuning pieces the tools share (issue 36): do_bench's call
// counts and summary, the tuned-config cache's round trip and key, and one config
// measured (checked against the interpreter, timed), including a mismatch.
#include "test_support.h"

#include "tilec/engine/bench.h"
#include "tilec/engine/tuning.h"
#include "tilec/engine/tuning_cache.h"
#include "tilec/frontend/parser.h"
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tilec {
namespace {

namespace fs = std::filesystem;

TEST(DoBench, CallsWarmupThenRepAndSummarizes) {
  int calls = 0;
  BenchResult r = do_bench([&] { ++calls; }, BenchOptions{2, 5});
  EXPECT_EQ(calls, 7);
  ASSERT_EQ(r.samples_ms.size(), 5u);
  EXPECT_LE(r.min_ms, r.median_ms);
  EXPECT_LE(r.median_ms, r.max_ms);
  EXPECT_THROW(do_bench([] {}, BenchOptions{0, 0}), std::invalid_argument);
  EXPECT_THROW(do_bench([] {}, BenchOptions{-1, 1}), std::invalid_argument);
}

TEST(DoBench, SummaryIsTheMedianAndPercentilesOfTheSamples) {
  BenchResult r = summarize_samples({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(r.median_ms, 3);
  EXPECT_DOUBLE_EQ(r.min_ms, 1);
  EXPECT_DOUBLE_EQ(r.max_ms, 5);
  EXPECT_DOUBLE_EQ(r.mean_ms, 3);
  EXPECT_DOUBLE_EQ(r.p20_ms, 1.8);  // NumPy's linear percentile
  EXPECT_DOUBLE_EQ(r.p80_ms, 4.2);
  EXPECT_DOUBLE_EQ(r.spread(), 0.8);
  EXPECT_EQ(r.samples_ms, (std::vector<double>{5, 1, 4, 2, 3}));  // call order kept
  EXPECT_DOUBLE_EQ(summarize_samples({2, 4}).median_ms, 3);
}

TEST(TuningCache, StoresLoadsAndKeysOnTarget) {
  fs::path dir = fs::temp_directory_path() / "tilec-tuning-cache-test";
  fs::remove_all(dir);
  testing::ScopedEnv cache("TILEC_CACHE_DIR", dir.string());
  TuningKey key{"source text", "f", {{"N", "64"}}, "c -keys=cpu", "native", {}};
  EXPECT_FALSE(load_tuned_config(key));
  ASSERT_TRUE(store_tuned_config(key, {{{"block", "32"}}, R"([{"status": "ok"}])"}));
  auto loaded = load_tuned_config(key);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->config.at("block"), "32");
  EXPECT_NE(loaded->table_json.find("ok"), std::string::npos);
  TuningKey other = key;
  other.target = "llvm -keys=cpu";
  EXPECT_NE(other.key(), key.key());
  EXPECT_FALSE(load_tuned_config(other));
  other = key;
  other.source += " ";
  EXPECT_FALSE(load_tuned_config(other));
  testing::ScopedEnv disabled("TILEC_DISABLE_CACHE", "1");
  EXPECT_FALSE(store_tuned_config(key, {{{"block", "16"}}, ""}));
  fs::remove_all(dir);
}

TEST(MeasureConfig, ChecksAgainstTheInterpreterThenTimes) {
  const char* source = R"(
import tilelang.language as T

@T.prim_func
def twice(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(2, threads=32) as bx:
        for i in T.Parallel(32):
            B[bx * 32 + i] = A[bx * 32 + i] * 2.0
)";
  ir::IRModule mod = ir::parse_kernel_source(source);
  Kernel kernel = compile(mod, "c");
  auto args = [](const ir::PrimFunc& f) { return ir::make_random_args(f, {}, 1); };
  ConfigMeasurement ok = measure_config(mod, kernel, true, BenchOptions{0, 2}, args);
  EXPECT_EQ(ok.status, "ok") << ok.error;
  ASSERT_TRUE(ok.timing);
  EXPECT_EQ(ok.timing->samples_ms.size(), 2u);

  // A kernel that computes something else is caught by the check and never timed.
  std::string wrong = source;
  wrong.replace(wrong.find("* 2.0"), 5, "* 3.0");
  Kernel other = compile(ir::parse_kernel_source(wrong), "c");
  ConfigMeasurement bad = measure_config(mod, other, true, BenchOptions{0, 1}, args);
  EXPECT_EQ(bad.status, "check failed");
  EXPECT_FALSE(bad.timing);
  EXPECT_GT(bad.max_abs_err, 0);
}

}  // namespace
}  // namespace tilec
