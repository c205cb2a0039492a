// Kernel speed against baselines, side by side in one run:
//  - float32 GEMM 1024^3 compiled by tilec (c target, native execution backend)
//    vs OpenBLAS cblas_sgemm on the same thread count: GFLOP/s and their ratio, with
//    B as it is and with B transposed (stored N x K);
//  - vector add vs memcpy of the same bytes on the same threads: GB/s and ratio.
#include "tilec/runtime/thread_pool.h"
#include "tilec/tilec.h"

#include "bench_support.h"

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

namespace {

constexpr const char* kVaddSource = R"(import tilelang.language as T

N = T.symbolic("N")
block = 4096


@T.prim_func
def vadd(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
        for i in T.Parallel(block):
            if bx * block + i < N:
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]
)";

using tilec::bench::Clock;

// Compiled afresh, never from the kernel cache: the cache key covers the kernel and
// the tilec version but not the lowering, so after a change to the lowering a cached
// kernel would be the old code and the benchmark would measure the previous build.
tilec::Kernel compile_uncached(const tilec::ir::IRModule& mod) {
  setenv("TILEC_DISABLE_CACHE", "1", 1);
  return tilec::compile(mod, "c", std::nullopt, "native");
}

using tilec::bench::random_tensor;
using tilec::bench::seconds_since;

// examples/<name> at n x n x n.
tilec::ir::IRModule gemm_example(const char* name) {
  return tilec::ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/" + name,
                                      {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}});
}

// Both sides run the same number of repetitions in this benchmark, so the
// ratio compares like with like on one machine state. n x n x n, float32.
void run_gemm_vs_openblas(benchmark::State& state, const tilec::ir::IRModule& mod,
                          bool transpose_b) {
  constexpr int64_t n = 1024;
  tilec::Kernel kernel = compile_uncached(mod);
  auto a = random_tensor({n, n}, 1), b = random_tensor({n, n}, 2);
  tilec::ir::HostTensor c(tilec::ir::DataType::Float32(), {n, n});
  std::vector<tilec::KernelArg> args = {a.view(), b.view(), c.view()};
  int threads = tilec::runtime::global_thread_pool().num_threads();
  openblas_set_num_threads(threads);
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, n, n, n, 1.0f,
                static_cast<float*>(a.data()), n, static_cast<float*>(b.data()), n, 0.0f,
                static_cast<float*>(c.data()), n);
  };
  kernel.call(args);  // warm up both
  blas();

  double tilec_seconds = 0, blas_seconds = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    kernel.call(args);
    tilec_seconds += seconds_since(start);
    start = Clock::now();
    blas();
    blas_seconds += seconds_since(start);
  }
  double flops = 2.0 * n * n * n * double(state.iterations());
  state.counters["threads"] = threads;
  state.counters["tilec_GFLOPs"] = flops / tilec_seconds * 1e-9;
  state.counters["openblas_GFLOPs"] = flops / blas_seconds * 1e-9;
  state.counters["tilec_over_openblas"] = blas_seconds / tilec_seconds;
  state.SetLabel(std::string("OpenBLAS core ") + openblas_get_corename());
}

void BM_Gemm1024_TilecVsOpenBLAS(benchmark::State& state) {
  run_gemm_vs_openblas(state, gemm_example("gemm_fp32.py"), false);
}
BENCHMARK(BM_Gemm1024_TilecVsOpenBLAS)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_Gemm1024TransposedB_TilecVsOpenBLAS(benchmark::State& state) {
  // B stored N x K: the lowering copies each B tile into a K x N panel for the same
  // micro-kernel as the plain GEMM.
  run_gemm_vs_openblas(state, gemm_example("gemm_nt.py"), true);
}
BENCHMARK(BM_Gemm1024TransposedB_TilecVsOpenBLAS)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_VectorAdd_TilecVsMemcpy(benchmark::State& state) {
  const int64_t n = state.range(0);
  tilec::Kernel kernel = compile_uncached(tilec::ir::parse_kernel_source(kVaddSource));
  auto a = random_tensor({n}, 1), b = random_tensor({n}, 2);
  tilec::ir::HostTensor c(tilec::ir::DataType::Float32(), {n});
  std::vector<tilec::KernelArg> args = {a.view(), b.view(), c.view()};
  // Vector add moves 12n bytes (reads A and B, writes C); memcpy of 6n bytes
  // moves the same 12n (read + write), split over the same thread pool.
  const int64_t copy_bytes = n * 6;
  std::vector<char> src(copy_bytes), dst(copy_bytes);
  std::memset(src.data(), 1, copy_bytes);
  auto& pool = tilec::runtime::global_thread_pool();
  auto parallel_memcpy = [&] {
    pool.parallel_for(pool.num_threads(), [&](int64_t begin, int64_t end) {
      int64_t lo = begin * copy_bytes / pool.num_threads();
      int64_t hi = end * copy_bytes / pool.num_threads();
      std::memcpy(dst.data() + lo, src.data() + lo, size_t(hi - lo));
      return 0;
    });
  };
  kernel.call(args);
  parallel_memcpy();

  double tilec_seconds = 0, memcpy_seconds = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    kernel.call(args);
    tilec_seconds += seconds_since(start);
    start = Clock::now();
    parallel_memcpy();
    memcpy_seconds += seconds_since(start);
    benchmark::DoNotOptimize(dst.data());
  }
  double bytes = 12.0 * double(n) * double(state.iterations());
  state.counters["tilec_GBps"] = bytes / tilec_seconds * 1e-9;
  state.counters["memcpy_GBps"] = bytes / memcpy_seconds * 1e-9;
  state.counters["tilec_over_memcpy"] = memcpy_seconds / tilec_seconds;
}
BENCHMARK(BM_VectorAdd_TilecVsMemcpy)
    ->Arg(1 << 16)
    ->Arg(1 << 24)
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0);

// OpenBLAS reads its settings when the library loads, before main, so the benchmark
// sets them and runs itself again (marked by TILEC_BENCH_OPENBLAS_ENV; set that
// variable yourself to run with the OpenBLAS settings you give instead).
//  - Its worker threads spin for about 2^28 cycles after each call (the default
//    thread timeout) before they sleep. The GEMM benchmark calls tilec right after
//    cblas_sgemm, so a spinning worker took a core from tilec's second thread:
//    measured on 2 cores, tilec 200 GFLOP/s with the default against 340 with
//    OPENBLAS_THREAD_TIMEOUT=4 (16 cycles), OpenBLAS 240 either way.
//  - Its DYNAMIC_ARCH build (0.3.21) picks the AVX2 Haswell kernel on AMD CPUs with
//    AVX-512, about half of what its AVX-512 SkylakeX kernel does there (240 against
//    450 GFLOP/s, 2 cores): the baseline is the faster one when the CPU can run it.
//    (OpenBLAS writes the core it picked into OPENBLAS_CORETYPE itself, so a value
//    found there is not the user's.)
void configure_openblas_and_rerun(char** argv) {
  if (std::getenv("TILEC_BENCH_OPENBLAS_ENV")) return;
  setenv("TILEC_BENCH_OPENBLAS_ENV", "1", 1);
  if (!std::getenv("OPENBLAS_THREAD_TIMEOUT") && !std::getenv("GOTO_THREAD_TIMEOUT"))
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: run as we are
}

}  // namespace

int main(int argc, char** argv) {
  configure_openblas_and_rerun(argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
