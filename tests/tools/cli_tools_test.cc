// The kernel author's tools (issue 36) run as a user runs them: compile's pass printing
// and timing flags, `tilec bench` (JSON, work rates, --compare), `tilec tune` (a failing
// config skipped, the table, the best config cached and used by `tilec run`, --retune)
// and `tilec trace`'s page. Tiny shapes, few configs and 1-2 repetitions: CI time is
// short, and nothing asserts a timing.
#include "../cli_support.h"
#include "build_paths.h"
#include "tilec/engine/initialize.h"
#include "tilec/exec/execution_backend.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace tilec {
namespace {

namespace fs = std::filesystem;

using testing::example;
using testing::tilec_cli;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The JSON array a command printed (stdout) among its stderr lines.
nlohmann::json json_array(const std::string& output) {
  size_t start = output.find("[\n");
  size_t end = output.find("\n]", start);
  EXPECT_NE(end, std::string::npos) << output;
  return nlohmann::json::parse(output.substr(start, end + 2 - start));
}

// `tilec ARGS...` with TILEC_CACHE_DIR set to a fresh directory of this test's own.
class PrivateCache {
 public:
  explicit PrivateCache(const std::string& name)
      : dir_(fs::path(TILEC_BINARY_DIR) / "test-tmp" / ("cache-" + name)) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~PrivateCache() { fs::remove_all(dir_); }
  exec::ProcessResult run(std::vector<std::string> args) const {
    args.insert(args.begin(), {"env", "TILEC_CACHE_DIR=" + dir_.string(), TILEC_EXECUTABLE});
    return exec::run_process(args);
  }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

TEST(CliPassFlags, PrintBeforeAfterAndTimePasses) {
  auto r = tilec_cli({"compile", example("vector_add.py"), "--target", "c", "--emit", "device",
                      "--print-before=tilec.flatten_buffers",
                      "--print-after=tilec.split_host_device", "--time-passes"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "// IR before cpu/tilec.flatten_buffers"), 1u) << r.output;
  EXPECT_EQ(count(r.output, "// IR after cpu/tilec.split_host_device"), 1u) << r.output;
  EXPECT_EQ(count(r.output, "// IR after"), 1u);
  EXPECT_NE(r.output.find("ms  cpu/tilec.lower_tile_ops"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ms  total"), std::string::npos);

  auto all = tilec_cli({"compile", example("vector_add.py"), "--target", "c", "--emit", "device",
                        "--print-after-all"});
  ASSERT_EQ(all.exit_code, 0) << all.output;
  auto backends = tilec_cli({"backends", "--json"});
  auto modules = nlohmann::json::parse(backends.output.substr(backends.output.find('{')));
  size_t passes = 0;
  for (const auto& m : modules["backends"])
    if (m["name"] == "cpu") passes = m["pipelines"]["c"]["passes"].size();
  ASSERT_GT(passes, 3u);
  EXPECT_EQ(count(all.output, "// IR after cpu/"), passes);

  auto bad = tilec_cli(
      {"compile", example("vector_add.py"), "--target", "c", "--print-after=tilec.simplfy"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("pipeline 'cpu' has no pass 'tilec.simplfy' (did you mean "
                            "'tilec.simplify'?)"),
            std::string::npos)
      << bad.output;
  EXPECT_NE(bad.output.find("tilec.split_host_device"), std::string::npos);  // the list
}

TEST(CliBench, JsonWithRatesAndCompare) {
  auto r = tilec_cli({"bench", example("vector_add.py"), "--target", "c", "-D", "N=512", "--warmup",
                      "1", "--rep", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto rows = json_array(r.output);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["function"], "vector_add");
  EXPECT_EQ(rows[0]["rep"], 2);
  EXPECT_GT(rows[0]["median_ms"].get<double>(), 0.0);
  EXPECT_LE(rows[0]["min_ms"].get<double>(), rows[0]["max_ms"].get<double>());
  EXPECT_TRUE(rows[0].contains("gbps"));  // the file's `# bytes:` comment
  EXPECT_FALSE(rows[0].contains("gflops"));

  auto compare =
      tilec_cli({"bench", example("gemm.py"), "-D", "M=64", "-D", "N=64", "-D", "K=32", "--warmup",
                 "0", "--rep", "1", "--compare", std::string("c,") + testing::kAutoCpuKind});
  ASSERT_EQ(compare.exit_code, 0) << compare.output;
  EXPECT_EQ(count(compare.output, "GFLOP/s"), 2u) << compare.output;
  EXPECT_NE(compare.output.find("x1.00 vs c"), std::string::npos) << compare.output;

  auto bad = tilec_cli({"bench", example("vector_add.py"), "--flops", "2*Q"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("'Q' has no value"), std::string::npos) << bad.output;
}

const char* kTunedKernel = R"(# A kernel with autotune configs, one of which its factory refuses.
import tilelang
import tilelang.language as T
from tilelang.autotuner import autotune


def configs():
    return [{"block": b, "threads": 32} for b in [8, 16, 48]]


@autotune(configs=configs, warmup=1, rep=2)
@tilelang.jit(out_idx=[-1])
def scale(N=32, block=8, threads=32):
    assert N % block == 0, "block must divide N"

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // block, threads=threads) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] * 2.0

    return main
)";

// `tilec bench` on opencl times with the queue's profiling events and says so (issue 36:
// device timers where the backend has them); the CPU backends time on the host.
TEST(CliBench, OpenCLUsesTheDeviceClock) {
  auto host = tilec_cli({"bench", example("vector_add.py"), "--target", "c", "-D", "N=256",
                         "--warmup", "0", "--rep", "1", "--json"});
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_EQ(json_array(host.output)[0]["clock"], "host wall");
  tilec::initialize();
  if (!exec::is_execution_backend_available("opencl"))
    GTEST_SKIP() << "the opencl execution backend is not available here (no OpenCL driver; "
                    "scripts/setup.sh installs PoCL)";
  auto r = tilec_cli({"bench", example("vector_add.py"), "--target", "opencl", "-D", "N=4096",
                      "--warmup", "1", "--rep", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto rows = json_array(r.output);
  EXPECT_EQ(rows[0]["clock"], "device (OpenCL profiling events)") << r.output;
  EXPECT_GT(rows[0]["median_ms"].get<double>(), 0.0);
  auto text = tilec_cli({"bench", example("vector_add.py"), "--target", "opencl", "-D", "N=256",
                         "--warmup", "0", "--rep", "1"});
  EXPECT_NE(text.output.find("device (OpenCL profiling events) clock"), std::string::npos)
      << text.output;
}

// wgpu-native's Vulkan drivers print "XDG_RUNTIME_DIR is invalid or not set" when it is
// unset; the webgpu module gives the process a private one first (wgpu_runtime.cc).
TEST(CliWebGPU, QuietWithoutXdgRuntimeDir) {
  auto r = exec::run_process({"env", "-u", "XDG_RUNTIME_DIR", TILEC_EXECUTABLE, "backends"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("XDG_RUNTIME_DIR"), std::string::npos) << r.output;
  tilec::initialize();
  if (!exec::is_execution_backend_available("wgpu"))
    GTEST_SKIP() << "the wgpu execution backend is not available here (scripts/setup.sh "
                    "installs wgpu-native and lavapipe)";
  auto run =
      exec::run_process({"env", "-u", "XDG_RUNTIME_DIR", TILEC_EXECUTABLE, "run",
                         example("vector_add.py"), "--target", "webgpu", "-D", "N=64", "--check"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("XDG_RUNTIME_DIR"), std::string::npos) << run.output;
  // Where the adapter offers timestamp-query (lavapipe does), bench times each launch's
  // compute pass on the device; elsewhere on the host, and the JSON says which.
  auto bench = tilec_cli({"bench", example("vector_add.py"), "--target", "webgpu", "-D", "N=256",
                          "--warmup", "0", "--rep", "2", "--json"});
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  std::string clock = json_array(bench.output)[0]["clock"];
  EXPECT_TRUE(clock == "device (WebGPU timestamp queries)" || clock == "host wall") << clock;
}

TEST(CliTune, SkipsAFailingConfigCachesTheBestAndRunUsesIt) {
  PrivateCache cache("tune");
  fs::path file = cache.dir() / "scaled.py";
  std::ofstream(file) << kTunedKernel;
  auto tune = cache.run({"tune", file.string(), "--target", "c", "-j", "2"});
  ASSERT_EQ(tune.exit_code, 0) << tune.output;
  EXPECT_NE(tune.output.find("3 configs on c"), std::string::npos) << tune.output;
  // Off a terminal the progress is plain lines with the fraction (progress.h).
  EXPECT_NE(tune.output.find("tilec: tune: compiling 3/3 (100%): "), std::string::npos)
      << tune.output;
  EXPECT_NE(tune.output.find("tilec: tune: timing 3/3 (100%): "), std::string::npos) << tune.output;
  // The refused config is in the table with its error; the two others are ranked.
  EXPECT_TRUE(
      std::regex_search(tune.output, std::regex("block=48 threads=32 +- +- +compile error: .*block "
                                                "must divide N")))
      << tune.output;
  EXPECT_TRUE(std::regex_search(tune.output, std::regex("\\* 1 +block=(8|16) threads=32 ")))
      << tune.output;
  EXPECT_NE(tune.output.find("2    block="), std::string::npos) << tune.output;
  std::smatch best;
  ASSERT_TRUE(std::regex_search(tune.output, best, std::regex("best (block=\\d+ threads=32)")));

  auto run = cache.run({"run", file.string(), "--target", "c", "--check"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("using the tuned config of 'scale': " + best[1].str()),
            std::string::npos)
      << run.output;
  // -D of a tuned name is the user's choice: no tuned config then.
  auto chosen = cache.run({"run", file.string(), "--target", "c", "-D", "block=16"});
  ASSERT_EQ(chosen.exit_code, 0) << chosen.output;
  EXPECT_EQ(chosen.output.find("tuned config"), std::string::npos) << chosen.output;

  auto again = cache.run({"tune", file.string(), "--target", "c", "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("was tuned before"), std::string::npos) << again.output;
  auto table = json_array(again.output);
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[2]["status"], "compile error");

  auto retune = cache.run({"tune", file.string(), "--target", "c", "--retune", "--no-check",
                           "--rep", "1", "--warmup", "0"});
  ASSERT_EQ(retune.exit_code, 0) << retune.output;
  EXPECT_NE(retune.output.find("not checked"), std::string::npos) << retune.output;
  EXPECT_EQ(retune.output.find("was tuned before"), std::string::npos);

  // Timed at N=64, checked on the smaller N=16 build.
  auto small = cache.run({"tune", file.string(), "--target", "c", "-D", "N=64", "--check-define",
                          "N=16", "--rep", "1", "--warmup", "0", "--json"});
  ASSERT_EQ(small.exit_code, 0) << small.output;
  auto rows = json_array(small.output);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["status"], "ok") << small.output;
  EXPECT_EQ(rows[1]["status"], "ok") << small.output;

  // By default each config is checked on a small problem: N=32 shrinks to two tiles of
  // block=8 (16); block=16 already has two tiles at N=32 (tilec/engine/tuning.h).
  auto by_rule = cache.run({"tune", file.string(), "--target", "c", "--retune", "--rep", "1",
                            "--warmup", "0", "--json"});
  ASSERT_EQ(by_rule.exit_code, 0) << by_rule.output;
  EXPECT_NE(by_rule.output.find("checked against the interpreter on a small problem"),
            std::string::npos)
      << by_rule.output;
  for (const auto& row : json_array(by_rule.output)) {
    if (row["config"]["block"] == "8") {
      EXPECT_EQ(row["checked_at"], "N=16") << row;
    }
    if (row["config"]["block"] == "16") {
      EXPECT_EQ(row["checked_at"], "the tuned size") << row;
    }
  }
  // --bounds-check builds differently: its own tuning entry, not the one above.
  auto checked = cache.run(
      {"tune", file.string(), "--target", "c", "--bounds-check", "--rep", "1", "--warmup", "0"});
  ASSERT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_EQ(checked.output.find("was tuned before"), std::string::npos) << checked.output;

  auto none = cache.run({"tune", example("vector_add.py")});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.output.find("no autotune configs to tune"), std::string::npos) << none.output;
}

TEST(CliTrace, WritesOneSelfContainedPage) {
  PrivateCache cache("trace");
  fs::path page = cache.dir() / "trace.html";
  auto r = cache.run({"trace", example("softmax.py"), "--target", "c", "-o", page.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(page);
  std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_GT(count(html, "<section class=\"pass\""), 5u);
  EXPECT_GT(count(html, "<ins>"), 0u);
  EXPECT_NE(html.find("id=\"device\""), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);  // nothing fetched
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
}

TEST(CliTrace, EveryExampleGivesAPage) {
  PrivateCache cache("trace-all");
  size_t pages = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TILEC_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".py") continue;
    fs::path page = cache.dir() / (entry.path().stem().string() + ".html");
    auto r = cache.run({"trace", entry.path().string(), "-o", page.string()});
    ASSERT_EQ(r.exit_code, 0) << entry.path() << "\n" << r.output;
    ASSERT_TRUE(fs::file_size(page) > 1000) << page;
    ++pages;
  }
  EXPECT_GE(pages, 20u);
}

// The page in a real browser: headless Chromium (Debian's `chromium`) loads it, its one
// script counts what the DOM holds into #summary, and the dumped DOM must show a section
// per pass of the pipeline, changed lines and the fragment layout drawn; a phone-sized
// screenshot is kept in <build>/test-tmp/trace-screenshots/.
std::string find_chromium() {
  for (const char* name : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(name)) return name;
  return "";
}

TEST(TraceInBrowser, ChromiumShowsEveryPassTheDiffsAndTheLayout) {
  std::string chromium = find_chromium();
  if (chromium.empty())
    GTEST_SKIP() << "Chromium is not installed (apt-get install chromium; scripts/setup.sh "
                    "installs it)";
  PrivateCache cache("trace-browser");
  fs::path page = cache.dir() / "gemm.html";
  // The cuda target's SIMT lowering lays the accumulator out over threads; the `source`
  // execution backend generates its code without a GPU or toolkit.
  auto r = cache.run({"trace", example("gemm.py"), "--target", "cuda -arch=sm_80",
                      "--execution-backend", "source", "-o", page.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto backends = tilec_cli({"backends", "--json"});
  auto modules = nlohmann::json::parse(backends.output.substr(backends.output.find('{')));
  size_t passes = 0;
  for (const auto& m : modules["backends"])
    if (m["name"] == "cuda") passes = m["pipelines"]["cuda"]["passes"].size();
  ASSERT_GT(passes, 0u);

  fs::path profile = cache.dir() / "profile";
  std::vector<std::string> browser = {chromium, "--headless", "--no-sandbox", "--disable-gpu",
                                      "--user-data-dir=" + profile.string()};
  std::vector<std::string> dump = browser;
  dump.insert(dump.end(), {"--dump-dom", "file://" + page.string()});
  auto dom = exec::run_process(dump);
  ASSERT_EQ(dom.exit_code, 0) << dom.output;
  std::smatch summary;
  ASSERT_TRUE(std::regex_search(dom.output, summary,
                                std::regex("id=\"summary\">(\\d+) passes, (\\d+) changed lines, "
                                           "(\\d+) fragment layouts, (\\d+) layout cells drawn")))
      << dom.output.substr(0, 2000);
  EXPECT_EQ(std::stoul(summary[1]), passes);
  EXPECT_GT(std::stoul(summary[2]), 0u);
  EXPECT_GE(std::stoul(summary[3]), 1u);
  EXPECT_GT(std::stoul(summary[4]), 0u);
  EXPECT_NE(dom.output.find("T0<br>r0"), std::string::npos);  // thread 0 holds (0, 0) in r0

  fs::path shots = fs::path(TILEC_BINARY_DIR) / "test-tmp" / "trace-screenshots";
  fs::create_directories(shots);
  fs::path shot = shots / "gemm_cuda_phone.png";
  fs::remove(shot);
  std::vector<std::string> screenshot = browser;
  screenshot.insert(screenshot.end(), {"--screenshot=" + shot.string(), "--window-size=412,915",
                                       "file://" + page.string()});
  auto taken = exec::run_process(screenshot);
  ASSERT_EQ(taken.exit_code, 0) << taken.output;
  ASSERT_TRUE(fs::exists(shot)) << taken.output;
  std::ifstream png(shot, std::ios::binary);
  char signature[8] = {};
  png.read(signature, 8);
  EXPECT_EQ(std::string(signature + 1, 3), "PNG");
}

}  // namespace
}  // namespace tilec
