// The webgpu backend (WGSL on wgpu-native; lavapipe, a Vulkan device on the CPU, here)
// against the cpu backend, side by side in one run: examples/gemm_fp32.py at 256^3 and
// examples/softmax.py at 1024 x 128, each compiled from the same source for `webgpu` (wgpu
// execution backend) and for `c` (native). Reported: milliseconds per call of each and
// webgpu_over_c, the ratio of the c time to the webgpu time (above 1: webgpu faster). The
// webgpu figure includes the copies of the host tensors to and from storage buffers on every
// call. Information only: lavapipe is a software rasterizer's compute path, not a GPU.
// Skipped with the reason when there is no WebGPU adapter.
#include "build_paths.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/tilec.h"

#include "bench_support.h"

#include <benchmark/benchmark.h>

#include <cstdlib>

namespace {

using tilec::bench::Clock;
using tilec::bench::random_tensor;
using tilec::bench::seconds_since;

void run_webgpu_vs_c(benchmark::State& state, const char* example,
                     const std::map<std::string, std::string>& defines,
                     const std::vector<std::vector<int64_t>>& shapes) {
  tilec::initialize();
  auto wgpu = tilec::exec::get_execution_backend("wgpu");
  if (!wgpu->available()) {
    state.SkipWithError(wgpu->unavailable_reason().c_str());
    return;
  }
  // Compiled afresh: a cached kernel could predate a change to the lowering.
  setenv("TILEC_DISABLE_CACHE", "1", 1);
  auto mod =
      tilec::ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/" + example, defines);
  tilec::Kernel on_webgpu = tilec::compile(mod, "webgpu", std::nullopt, "wgpu");
  tilec::Kernel on_c = tilec::compile(mod, "c", std::nullopt, "native");
  std::vector<tilec::ir::HostTensor> tensors;
  std::vector<tilec::KernelArg> args;
  for (size_t i = 0; i < shapes.size(); ++i) tensors.push_back(random_tensor(shapes[i], i + 1));
  for (auto& t : tensors) args.push_back(t.view());
  on_webgpu.call(args);  // warm up both (the pipeline is created on the first launch)
  on_c.call(args);
  double webgpu_seconds = 0, c_seconds = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    on_webgpu.call(args);
    webgpu_seconds += seconds_since(start);
    start = Clock::now();
    on_c.call(args);
    c_seconds += seconds_since(start);
  }
  double n = double(state.iterations());
  state.counters["webgpu_ms"] = webgpu_seconds / n * 1e3;
  state.counters["c_ms"] = c_seconds / n * 1e3;
  state.counters["webgpu_over_c"] = c_seconds / webgpu_seconds;
}

void BM_Gemm256_WebGpuVsC(benchmark::State& state) {
  run_webgpu_vs_c(state, "gemm_fp32.py", {{"M", "256"}, {"N", "256"}, {"K", "256"}},
                  {{256, 256}, {256, 256}, {256, 256}});
}
BENCHMARK(BM_Gemm256_WebGpuVsC)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_Softmax1024_WebGpuVsC(benchmark::State& state) {
  run_webgpu_vs_c(state, "softmax.py", {{"M", "1024"}}, {{1024, 128}, {1024, 128}});
}
BENCHMARK(BM_Softmax1024_WebGpuVsC)->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
