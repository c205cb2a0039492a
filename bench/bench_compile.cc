// Compile latency of the GEMM example: cold (cache disabled: lower, generate C,
// run the C compiler, load) and from the kernel cache (lower, validate, load); and of
// vector_add cold on llvm_jit, on native with the llvm target and on c, and from the cache.
#include "build_paths.h"
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

const tilec::ir::IRModule& vector_add_module() {
  static const tilec::ir::IRModule mod =
      tilec::ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/vector_add.py");
  return mod;
}

// examples/vector_add.py cold (cache disabled) on (target, execution backend): the whole
// compile() (lower, codegen, build, load), so the goal for llvm_jit is < 50 ms.
void BM_CompileVectorAddCold(benchmark::State& state, std::string target, std::string backend) {
  setenv("TILEC_DISABLE_CACHE", "1", 1);
  tilec::compile(vector_add_module(), target, std::nullopt, backend);  // process start-up (JIT)
  for (auto _ : state) {
    tilec::Kernel kernel = tilec::compile(vector_add_module(), target, std::nullopt, backend);
    benchmark::DoNotOptimize(kernel.library_path());
  }
  unsetenv("TILEC_DISABLE_CACHE");
}
BENCHMARK_CAPTURE(BM_CompileVectorAddCold, llvm_llvm_jit, "llvm", "llvm_jit")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(10);
BENCHMARK_CAPTURE(BM_CompileVectorAddCold, llvm_native, "llvm", "native")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(10);
BENCHMARK_CAPTURE(BM_CompileVectorAddCold, c_native, "c", "native")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(10);

// A cache hit on llvm_jit: lower, codegen for the key, load kernel.o into the JIT (goal < 1 ms).
void BM_CompileVectorAddFromCache(benchmark::State& state, std::string target,
                                  std::string backend) {
  fs::path cache = fs::temp_directory_path() / ("tilec-bench-cache-" + std::to_string(getpid()));
  setenv("TILEC_CACHE_DIR", cache.c_str(), 1);
  unsetenv("TILEC_DISABLE_CACHE");
  tilec::compile(vector_add_module(), target, std::nullopt, backend);  // populate
  for (auto _ : state) {
    tilec::Kernel kernel = tilec::compile(vector_add_module(), target, std::nullopt, backend);
    if (!kernel.cache_hit()) state.SkipWithError("expected a cache hit");
    benchmark::DoNotOptimize(kernel.library_path());
  }
  fs::remove_all(cache);
}
BENCHMARK_CAPTURE(BM_CompileVectorAddFromCache, llvm_llvm_jit, "llvm", "llvm_jit")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileVectorAddFromCache, llvm_native, "llvm", "native")
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
