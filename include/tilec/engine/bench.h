// do_bench: TileLang's timing method for any callable — warm-up calls, then `rep`
// timed calls, each timed alone on the steady clock (a Kernel call returns when the
// kernel is done, so the wall time of a call is the kernel's time on every execution
// backend). Where the execution backend has a device timer (OpenCL profiling events,
// WebGPU timestamp queries: Kernel::take_device_time_ms), each call is timed by it
// instead, and the result names the clock. The summary is the median with the spread
// (min, max, 20th/80th percentiles). `tilec bench`, `tilec tune` and bench/ use this one
// definition.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

struct BenchOptions {
  int warmup = 10;  // untimed calls first (caches, JIT, thread pool start-up)
  int rep = 50;     // timed calls
};

struct BenchResult {
  std::vector<double> samples_ms;  // one per timed call, in call order
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0;
  double p20_ms = 0, p80_ms = 0;
  std::string clock = "host wall";  // or "device (<the timer's name>)"
  // (p80 - p20) / median: the relative spread, robust to one outlier.
  double spread() const { return median_ms > 0 ? (p80_ms - p20_ms) / median_ms : 0; }
};

// A device timer: `take` gives the device time of the launches since its previous call
// (nullopt: not timed). do_bench takes it once before the timed calls and after each.
struct DeviceTimer {
  std::string name;  // "OpenCL profiling events"
  std::function<std::optional<double>()> take;
};

// Throws std::invalid_argument for warmup < 0 or rep < 1; what `fn` throws propagates.
// With a timer, the samples are its device times; if any timed call reports none, all
// samples are the host wall times (measured alongside) and the clock says so.
BenchResult do_bench(const std::function<void()>& fn, const BenchOptions& options = {},
                     const std::optional<DeviceTimer>& timer = std::nullopt);

class Kernel;
// The kernel's device timer, or nullopt when its execution backend has none.
std::optional<DeviceTimer> device_timer_of(const Kernel& kernel);

// The summary of samples (not empty), as do_bench computes it.
BenchResult summarize_samples(std::vector<double> samples_ms);

// "1.234 ms ±3.1%" style: the median and the relative spread.
std::string format_timing(const BenchResult& result);

}  // namespace tilec
