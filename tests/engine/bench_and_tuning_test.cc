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

// A device timer's readings are the samples (the host wall times are not), and the
// clock says so; one call it cannot time makes the whole run host wall.
TEST(DoBench, UsesTheDeviceTimerWhereThereIsOne) {
  int calls = 0, takes = 0;
  DeviceTimer timer{"test clock", [&]() -> std::optional<double> {
                      ++takes;
                      return calls * 10.0;  // a device time known per call
                    }};
  BenchResult r = do_bench([&] { ++calls; }, BenchOptions{1, 3}, timer);
  EXPECT_EQ(takes, 4) << "once after the warm-up, once per timed call";
  EXPECT_EQ(r.samples_ms, (std::vector<double>{20, 30, 40}));
  EXPECT_EQ(r.clock, "device (test clock)");
  DeviceTimer blind{"blind", []() -> std::optional<double> { return std::nullopt; }};
  BenchResult host = do_bench([] {}, BenchOptions{0, 2}, blind);
  EXPECT_EQ(host.clock, "host wall");
  EXPECT_EQ(host.samples_ms.size(), 2u);
  EXPECT_EQ(do_bench([] {}, BenchOptions{0, 1}).clock, "host wall");
}

// The small problem tune checks each config on (tuning.h): sizes that are multiples of the
// blocks' lcm shrink to two tiles; the others, and configs without block sizes, stay.
TEST(SmallCheckSizes, TwoTilesOfTheLcmOfTheBlockSizes) {
  std::map<std::string, int64_t> sizes = {
      {"M", 256}, {"N", 256}, {"K", 128}, {"dim", 48}, {"heads", 4}};
  auto small = small_check_sizes({{"block_M", "64"},
                                  {"block_N", "32"},
                                  {"BLOCK_K", "32"},
                                  {"num_stages", "2"},
                                  {"threads", "128"}},
                                 sizes);
  EXPECT_EQ(small, (std::map<std::string, int64_t>{{"M", 128}, {"N", 128}}))
      << "K=128 is already two tiles; dim is no multiple of 64; heads is smaller";
  EXPECT_EQ(small_check_sizes({{"tile_m", "16"}, {"block_n", "24"}}, {{"S", 480}}),
            (std::map<std::string, int64_t>{{"S", 96}}));
  EXPECT_TRUE(small_check_sizes({{"threads", "128"}}, sizes).empty());
  EXPECT_TRUE(small_check_sizes({{"block_M", "512"}}, sizes).empty());
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
  TuningKey key{"source text", "f", {{"N", "64"}}, "c -keys=cpu", "native", {}, {}};
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
  // A checked build (--bounds-check, --racecheck) times differently: another entry.
  other = key;
  other.pass_config["tilec.bounds_check"] = "true";
  EXPECT_NE(other.key(), key.key());
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
