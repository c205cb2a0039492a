// Kernel speed against baselines, side by side in one run, for each CPU target kind
// (`c` on native, `llvm` on llvm_jit; the benchmark name ends in the kind):
//  - float32 GEMM 1024^3 and 2048^3 vs OpenBLAS cblas_sgemm on the same thread count:
//    GFLOP/s and their ratio, with B as it is and with B transposed (stored N x K);
//  - float16-in / float32-accumulate GEMM (examples/gemm.py) vs cblas_sgemm on the same
//    inputs converted to float32 beforehand;
//  - vector add, softmax, rmsnorm and layernorm vs memcpy of the same bytes on the same
//    threads (PyTorch's ops on the same shapes: bench/torch_baseline.py);
//  - the float16 GEMM 256^3 on the cuda target through the device emulator (mma.sync,
//    ldmatrix and cp.async emulated, race checking off and on) next to the same kernel on
//    `c`: information on what a test run of an emulated kernel costs, no goal.
// Threads: the tilec pool's size (TILEC_NUM_THREADS, default the cores); run once with
// TILEC_NUM_THREADS=1 and once with 2 for both figures.
#include "build_paths.h"
#include "tilec/ir/float16.h"
#include "tilec/runtime/thread_pool.h"
#include "tilec/tilec.h"

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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

using Clock = std::chrono::steady_clock;

// Compiled afresh, never from the kernel cache: the cache key covers the kernel and
// the tilec version but not the lowering, so after a change to the lowering a cached
// kernel would be the old code and the benchmark would measure the previous build.
// "NAME=VALUE,NAME=VALUE" from environment variable `name` (unset: none).
std::vector<std::pair<std::string, std::string>> env_assignments(const char* name) {
  std::vector<std::pair<std::string, std::string>> out;
  const char* text = std::getenv(name);
  std::string item;
  std::istringstream items(text ? text : "");
  while (std::getline(items, item, ',')) {
    auto eq = item.find('=');
    if (eq != std::string::npos) out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

// TILEC_BENCH_PASS_CONFIG="cpu.gemm_micro_rows=8,cpu.prefetch=false" sets integer and
// boolean pass-config keys (for trying other micro-kernel shapes, or without prefetch;
// unset: the defaults the compiler derives).
tilec::PassConfig bench_pass_config() {
  tilec::PassConfig config;
  for (const auto& [key, value] : env_assignments("TILEC_BENCH_PASS_CONFIG"))
    if (value == "true" || value == "false")
      config[key] = value == "true";
    else
      config[key] = int64_t(std::stoll(value));
  return config;
}

tilec::Kernel compile_uncached(const tilec::ir::IRModule& mod, const std::string& kind) {
  setenv("TILEC_DISABLE_CACHE", "1", 1);
  return tilec::compile(mod, kind, std::nullopt, kind == "c" ? "native" : "auto",
                        bench_pass_config());
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds used by the whole process (every thread) so far. On a machine other jobs
// share, a ratio of CPU times still compares the work each side did where the wall-clock
// ratio mostly measures who got the cores.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

tilec::ir::HostTensor random_tensor(std::vector<int64_t> shape, uint64_t seed,
                                    tilec::ir::DataType dtype = tilec::ir::DataType::Float32()) {
  tilec::ir::HostTensor tensor(dtype, std::move(shape));
  tilec::ir::fill_random(tensor.view(), seed);
  return tensor;
}

// A float32 copy of a float16 tensor, for the OpenBLAS side of the float16 GEMM.
tilec::ir::HostTensor to_float32(const tilec::ir::HostTensor& half) {
  tilec::ir::HostTensor out(tilec::ir::DataType::Float32(), half.shape());
  const auto* in = static_cast<const uint16_t*>(half.data());
  auto* f = static_cast<float*>(out.data());
  for (int64_t i = 0; i < half.numel(); ++i) f[i] = tilec::ir::half_to_float(in[i]);
  return out;
}

// examples/<name> at n x n x n, with the example's own block sizes unless
// TILEC_BENCH_DEFINES="block_M=128,block_K=64" overrides some (for tuning them).
tilec::ir::IRModule gemm_example(const char* name, int64_t n) {
  std::string size = std::to_string(n);
  std::map<std::string, std::string> defines = {{"M", size}, {"N", size}, {"K", size}};
  for (const auto& [key, value] : env_assignments("TILEC_BENCH_DEFINES")) defines[key] = value;
  return tilec::ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/" + name, defines);
}

// Both sides run the same number of repetitions in this benchmark, so the
// ratio compares like with like on one machine state. n x n x n; tilec's inputs in
// `dtype` (float32 or float16), OpenBLAS's the same values in float32.
void run_gemm_vs_openblas(benchmark::State& state, const char* example, bool transpose_b, int64_t n,
                          const std::string& kind,
                          tilec::ir::DataType dtype = tilec::ir::DataType::Float32()) {
  tilec::Kernel kernel = compile_uncached(gemm_example(example, n), kind);
  auto a = random_tensor({n, n}, 1, dtype), b = random_tensor({n, n}, 2, dtype);
  tilec::ir::HostTensor c(dtype, {n, n});
  std::vector<tilec::KernelArg> args = {a.view(), b.view(), c.view()};
  bool converted = dtype != tilec::ir::DataType::Float32();
  tilec::ir::HostTensor a32 = converted ? to_float32(a) : a, b32 = converted ? to_float32(b) : b;
  tilec::ir::HostTensor c32(tilec::ir::DataType::Float32(), {n, n});
  int threads = tilec::runtime::global_thread_pool().num_threads();
  openblas_set_num_threads(threads);
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, n, n, n, 1.0f,
                static_cast<float*>(a32.data()), n, static_cast<float*>(b32.data()), n, 0.0f,
                static_cast<float*>(c32.data()), n);
  };
  kernel.call(args);  // warm up both
  blas();

  double tilec_seconds = 0, blas_seconds = 0, tilec_cpu = 0, blas_cpu = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    double cpu = process_cpu_seconds();
    kernel.call(args);
    tilec_seconds += seconds_since(start);
    tilec_cpu += process_cpu_seconds() - cpu;
    start = Clock::now();
    cpu = process_cpu_seconds();
    blas();
    blas_seconds += seconds_since(start);
    blas_cpu += process_cpu_seconds() - cpu;
  }
  double flops = 2.0 * double(n) * double(n) * double(n) * double(state.iterations());
  state.counters["threads"] = threads;
  state.counters["tilec_GFLOPs"] = flops / tilec_seconds * 1e-9;
  state.counters["openblas_GFLOPs"] = flops / blas_seconds * 1e-9;
  state.counters["tilec_over_openblas"] = blas_seconds / tilec_seconds;
  // The same ratio in CPU seconds (see process_cpu_seconds): what to read on a busy machine.
  state.counters["cpu_time_ratio"] = blas_cpu / tilec_cpu;
  state.SetLabel(std::string("OpenBLAS core ") + openblas_get_corename());
}

void BM_Gemm1024(benchmark::State& state, std::string kind) {
  run_gemm_vs_openblas(state, "gemm_fp32.py", false, 1024, kind);
}
void BM_Gemm2048(benchmark::State& state, std::string kind) {
  run_gemm_vs_openblas(state, "gemm_fp32.py", false, 2048, kind);
}
void BM_Gemm1024TransposedB(benchmark::State& state, std::string kind) {
  // B stored N x K: the lowering copies each B tile into a K x N panel for the same
  // micro-kernel as the plain GEMM.
  run_gemm_vs_openblas(state, "gemm_nt.py", true, 1024, kind);
}
void BM_Gemm1024Float16InFloat32Acc(benchmark::State& state, std::string kind) {
  run_gemm_vs_openblas(state, "gemm.py", false, 1024, kind, tilec::ir::DataType::Float(16));
}
// examples/gemm.py in float16 at 256^3 on the emulated cuda target (sm_80), against the
// same kernel on `c` in the same run.
void BM_EmulatedGemm256(benchmark::State& state, bool race_check) {
  tilec::ir::IRModule mod = gemm_example("gemm.py", 256);
  setenv("TILEC_DISABLE_CACHE", "1", 1);
  tilec::PassConfig config;
  if (race_check) config["tilec.emulator.racecheck"] = true;
  tilec::Kernel emulated =
      tilec::compile(mod, "cuda -arch=sm_80", std::nullopt, "emulator", config);
  tilec::Kernel on_c = compile_uncached(mod, "c");
  auto dtype = tilec::ir::DataType::Float(16);
  auto a = random_tensor({256, 256}, 1, dtype), b = random_tensor({256, 256}, 2, dtype);
  tilec::ir::HostTensor c(dtype, {256, 256});
  std::vector<tilec::KernelArg> args = {a.view(), b.view(), c.view()};
  emulated.call(args);
  on_c.call(args);
  double emulated_seconds = 0, c_seconds = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    emulated.call(args);
    emulated_seconds += seconds_since(start);
    start = Clock::now();
    on_c.call(args);
    c_seconds += seconds_since(start);
  }
  double n = double(state.iterations());
  state.counters["emulated_ms"] = emulated_seconds / n * 1e3;
  state.counters["c_ms"] = c_seconds / n * 1e3;
  state.counters["emulated_over_c"] = emulated_seconds / c_seconds;
}
BENCHMARK_CAPTURE(BM_EmulatedGemm256, plain, false)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_EmulatedGemm256, racecheck, true)->Unit(benchmark::kMillisecond)->MinTime(1.0);

BENCHMARK_CAPTURE(BM_Gemm1024, c, "c")->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Gemm1024, llvm, "llvm")->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Gemm2048, c, "c")->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Gemm2048, llvm, "llvm")->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Gemm1024TransposedB, c, "c")->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Gemm1024TransposedB, llvm, "llvm")
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Gemm1024Float16InFloat32Acc, c, "c")
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Gemm1024Float16InFloat32Acc, llvm, "llvm")
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

// `bytes_moved` bytes read + written by one call of the kernel against a memcpy moving
// as many (half read, half written), split over the same thread pool.
template <class CallKernel>
void run_vs_memcpy(benchmark::State& state, CallKernel call_kernel, int64_t bytes_moved) {
  const int64_t copy_bytes = bytes_moved / 2;
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
  call_kernel();
  parallel_memcpy();
  double tilec_seconds = 0, memcpy_seconds = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    call_kernel();
    tilec_seconds += seconds_since(start);
    start = Clock::now();
    parallel_memcpy();
    memcpy_seconds += seconds_since(start);
    benchmark::DoNotOptimize(dst.data());
  }
  double bytes = double(bytes_moved) * double(state.iterations());
  state.counters["tilec_GBps"] = bytes / tilec_seconds * 1e-9;
  state.counters["memcpy_GBps"] = bytes / memcpy_seconds * 1e-9;
  state.counters["tilec_over_memcpy"] = memcpy_seconds / tilec_seconds;
}

void BM_VectorAdd(benchmark::State& state, std::string kind) {
  const int64_t n = state.range(0);
  tilec::Kernel kernel = compile_uncached(tilec::ir::parse_kernel_source(kVaddSource), kind);
  auto a = random_tensor({n}, 1), b = random_tensor({n}, 2);
  tilec::ir::HostTensor c(tilec::ir::DataType::Float32(), {n});
  std::vector<tilec::KernelArg> args = {a.view(), b.view(), c.view()};
  // Reads A and B, writes C: 12n bytes.
  run_vs_memcpy(
      state, [&] { kernel.call(args); }, 12 * n);
}
BENCHMARK_CAPTURE(BM_VectorAdd, c, "c")
    ->Arg(1 << 16)
    ->Arg(1 << 24)
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0);
BENCHMARK_CAPTURE(BM_VectorAdd, llvm, "llvm")
    ->Arg(1 << 16)
    ->Arg(1 << 24)
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0);

// examples/softmax.py on 4096 rows of 1024 floats: reads X, writes Y (8 bytes a float).
void BM_Softmax(benchmark::State& state, std::string kind) {
  constexpr int64_t rows = 4096, cols = 1024;
  tilec::Kernel kernel = compile_uncached(
      tilec::ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/softmax.py",
                                   {{"M", std::to_string(rows)}, {"N", std::to_string(cols)}}),
      kind);
  auto x = random_tensor({rows, cols}, 1);
  tilec::ir::HostTensor y(tilec::ir::DataType::Float32(), {rows, cols});
  std::vector<tilec::KernelArg> args = {x.view(), y.view()};
  run_vs_memcpy(
      state, [&] { kernel.call(args); }, 8 * rows * cols);
}
BENCHMARK_CAPTURE(BM_Softmax, c, "c")->Unit(benchmark::kMicrosecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_Softmax, llvm, "llvm")->Unit(benchmark::kMicrosecond)->MinTime(1.0);

// examples/rms_norm.py and examples/layer_norm.py at the shape of TileLang's
// examples/norm/rms_norm.py (8192 x 8192, one row a block): read X, write Y; the
// weight (and bias) rows stay in cache.
void run_norm(benchmark::State& state, const char* file, bool bias, const std::string& kind) {
  constexpr int64_t rows = 8192, cols = 8192;
  tilec::Kernel kernel = compile_uncached(
      tilec::ir::parse_kernel_file(
          std::string(TILEC_SOURCE_DIR) + "/examples/" + file,
          {{"M", std::to_string(rows)}, {"N", std::to_string(cols)}, {"block_M", "1"}}),
      kind);
  auto x = random_tensor({rows, cols}, 1), w = random_tensor({cols}, 2),
       b = random_tensor({cols}, 3);
  tilec::ir::HostTensor y(tilec::ir::DataType::Float32(), {rows, cols});
  std::vector<tilec::KernelArg> args = {x.view(), w.view()};
  if (bias) args.push_back(b.view());
  args.push_back(y.view());
  run_vs_memcpy(
      state, [&] { kernel.call(args); }, 8 * rows * cols);
}
void BM_RmsNorm(benchmark::State& state, std::string kind) {
  run_norm(state, "rms_norm.py", false, kind);
}
void BM_LayerNorm(benchmark::State& state, std::string kind) {
  run_norm(state, "layer_norm.py", true, kind);
}
BENCHMARK_CAPTURE(BM_RmsNorm, c, "c")->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_RmsNorm, llvm, "llvm")->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_LayerNorm, c, "c")->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_LayerNorm, llvm, "llvm")->Unit(benchmark::kMillisecond)->MinTime(1.0);

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
