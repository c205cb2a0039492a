// The SIMT lowering on the opencl backend against the cpu backend, side by side in one
// run: examples/gemm_fp32.py at 512^3, examples/softmax.py at 4096 x 128 and examples/vector_add.py
// at 4M elements, each compiled
// from the same source for `opencl` (opencl execution backend; PoCL's CPU device here)
// and for `c` (native). Reported: milliseconds per call of each and opencl_over_c, the
// ratio of the c time to the opencl time (above 1: opencl faster). The opencl figure
// includes the copies of the host tensors to and from device buffers on every call.
// Also in the same run: opencl with vectorized copies and splits turned off
// (`opencl -vector_bytes=0`), and vector_over_scalar, the scalar time over the
// vectorized one (above 1: vectorization helps).
// Skipped with the reason when no OpenCL platform is found.
#include "build_paths.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/tilec.h"

#include "bench_support.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>

namespace {

using tilec::bench::random_tensor;

void run_opencl_vs_c(benchmark::State& state, const char* example,
                     const std::map<std::string, std::string>& defines,
                     const std::vector<std::vector<int64_t>>& shapes) {
  auto opencl = tilec::exec::get_execution_backend("opencl");
  if (!opencl->available()) {
    state.SkipWithError(opencl->unavailable_reason().c_str());
    return;
  }
  // Compiled afresh: a cached kernel could predate a change to the lowering.
  setenv("TILEC_DISABLE_CACHE", "1", 1);
  auto mod =
      tilec::ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/" + example, defines);
  tilec::Kernel on_opencl = tilec::compile(mod, "opencl", std::nullopt, "opencl");
  tilec::Kernel on_c = tilec::compile(mod, "c", std::nullopt, "native");
  tilec::Kernel scalar = tilec::compile(mod, "opencl -vector_bytes=0", std::nullopt, "opencl");
  std::vector<tilec::ir::HostTensor> tensors;
  std::vector<tilec::KernelArg> args;
  for (size_t i = 0; i < shapes.size(); ++i) tensors.push_back(random_tensor(shapes[i], i + 1));
  for (auto& t : tensors) args.push_back(t.view());
  on_opencl.call(args);  // warm up both
  on_c.call(args);
  scalar.call(args);
  double opencl_seconds = 0, c_seconds = 0, scalar_seconds = 0;
  std::vector<double> opencl_ms, c_ms;
  for (auto _ : state) {
    double t = tilec::bench::timed_call([&] { on_opencl.call(args); });
    opencl_seconds += t;
    opencl_ms.push_back(t * 1e3);
    t = tilec::bench::timed_call([&] { on_c.call(args); });
    c_seconds += t;
    c_ms.push_back(t * 1e3);
    scalar_seconds += tilec::bench::timed_call([&] { scalar.call(args); });
  }
  double n = double(state.iterations());
  // Medians as `tilec bench` reports them (tilec::summarize_samples).
  state.counters["opencl_median_ms"] = tilec::summarize_samples(opencl_ms).median_ms;
  state.counters["c_median_ms"] = tilec::summarize_samples(c_ms).median_ms;
  state.counters["opencl_ms"] = opencl_seconds / n * 1e3;
  state.counters["c_ms"] = c_seconds / n * 1e3;
  state.counters["opencl_over_c"] = c_seconds / opencl_seconds;
  state.counters["opencl_scalar_ms"] = scalar_seconds / n * 1e3;
  state.counters["vector_over_scalar"] = scalar_seconds / opencl_seconds;
}

void BM_Gemm512_OpenCLVsC(benchmark::State& state) {
  run_opencl_vs_c(state, "gemm_fp32.py", {{"M", "512"}, {"N", "512"}, {"K", "512"}},
                  {{512, 512}, {512, 512}, {512, 512}});
}
BENCHMARK(BM_Gemm512_OpenCLVsC)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_Softmax4096_OpenCLVsC(benchmark::State& state) {
  run_opencl_vs_c(state, "softmax.py", {{"M", "4096"}}, {{4096, 128}, {4096, 128}});
}
BENCHMARK(BM_Softmax4096_OpenCLVsC)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_VectorAdd4M_OpenCLVsC(benchmark::State& state) {
  run_opencl_vs_c(state, "vector_add.py", {{"N", "4194304"}, {"block_N", "1024"}},
                  {{4194304}, {4194304}, {4194304}});
}
BENCHMARK(BM_VectorAdd4M_OpenCLVsC)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
