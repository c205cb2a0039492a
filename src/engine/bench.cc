#include "tilec/engine/bench.h"

#include "tilec/engine/kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <stdexcept>

namespace tilec {
namespace {

// Linear interpolation between the closest ranks (NumPy's default percentile).
double percentile(const std::vector<double>& sorted, double q) {
  double pos = q * double(sorted.size() - 1);
  size_t lo = size_t(pos);
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

}  // namespace

BenchResult summarize_samples(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("summarize_samples: no samples");
  BenchResult result;
  std::vector<double> sorted = samples_ms;
  std::sort(sorted.begin(), sorted.end());
  result.median_ms = percentile(sorted, 0.5);
  result.p20_ms = percentile(sorted, 0.2);
  result.p80_ms = percentile(sorted, 0.8);
  result.min_ms = sorted.front();
  result.max_ms = sorted.back();
  result.mean_ms = std::accumulate(sorted.begin(), sorted.end(), 0.0) / double(sorted.size());
  result.samples_ms = std::move(samples_ms);
  return result;
}

BenchResult do_bench(const std::function<void()>& fn, const BenchOptions& options,
                     const std::optional<DeviceTimer>& timer) {
  if (options.warmup < 0)
    throw std::invalid_argument(fmt::format("warmup must be >= 0, got {}", options.warmup));
  if (options.rep < 1)
    throw std::invalid_argument(fmt::format("rep must be >= 1, got {}", options.rep));
  for (int i = 0; i < options.warmup; ++i) fn();
  if (timer) timer->take();  // drops the warm-up's launches
  std::vector<double> samples, device_samples;
  bool device_timed = bool(timer);
  samples.reserve(size_t(options.rep));
  for (int i = 0; i < options.rep; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    samples.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    if (device_timed) {
      std::optional<double> ms = timer->take();
      if (ms)
        device_samples.push_back(*ms);
      else
        device_timed = false;
    }
  }
  if (!device_timed) return summarize_samples(std::move(samples));
  BenchResult result = summarize_samples(std::move(device_samples));
  result.clock = "device (" + timer->name + ")";
  return result;
}

std::optional<DeviceTimer> device_timer_of(const Kernel& kernel) {
  std::string name = kernel.device_clock();
  if (name.empty()) return std::nullopt;
  return DeviceTimer{name, [kernel] { return kernel.take_device_time_ms(); }};
}

std::string format_timing(const BenchResult& result) {
  return fmt::format("{:.4f} ms ±{:.1f}%", result.median_ms, 100 * result.spread());
}

}  // namespace tilec
