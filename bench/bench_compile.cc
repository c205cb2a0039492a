// Compile latency of the GEMM example: cold (cache disabled: lower, generate C,
// run the C compiler, load) and from the kernel cache (lower, validate, load).
#include "tilec/tilec.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace {

namespace fs = std::filesystem;

const tilec::ir::IRModule& gemm_module() {
  static const tilec::ir::IRModule mod =
      tilec::ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/gemm.py");
  return mod;
}

void BM_CompileGemmCold(benchmark::State& state) {
  setenv("TILEC_DISABLE_CACHE", "1", 1);
  for (auto _ : state) {
    tilec::Kernel kernel = tilec::compile(gemm_module(), "c", std::nullopt, "native");
    benchmark::DoNotOptimize(kernel.library_path());
  }
  unsetenv("TILEC_DISABLE_CACHE");
}
BENCHMARK(BM_CompileGemmCold)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_CompileGemmFromCache(benchmark::State& state) {
  fs::path cache = fs::temp_directory_path() / ("tilec-bench-cache-" + std::to_string(getpid()));
  setenv("TILEC_CACHE_DIR", cache.c_str(), 1);
  unsetenv("TILEC_DISABLE_CACHE");
  tilec::compile(gemm_module(), "c", std::nullopt, "native");  // populate
  for (auto _ : state) {
    tilec::Kernel kernel = tilec::compile(gemm_module(), "c", std::nullopt, "native");
    if (!kernel.cache_hit()) state.SkipWithError("expected a cache hit");
    benchmark::DoNotOptimize(kernel.library_path());
  }
  fs::remove_all(cache);
}
BENCHMARK(BM_CompileGemmFromCache)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
