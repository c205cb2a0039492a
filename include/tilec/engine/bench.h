// do_bench: TileLang's timing method for any callable — warm-up calls, then `rep`
// timed calls, each timed alone on the steady clock (a Kernel call returns when the
// kernel is done, so the wall time of a call is the kernel's time on every execution
// backend). The summary is the median with the spread (min, max, 20th/80th
// percentiles). `tilec bench`, `tilec tune` and bench/ use this one definition.
#pragma once

#include <functional>
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
  // (p80 - p20) / median: the relative spread, robust to one outlier.
  double spread() const { return median_ms > 0 ? (p80_ms - p20_ms) / median_ms : 0; }
};

// Throws std::invalid_argument for warmup < 0 or rep < 1; what `fn` throws propagates.
BenchResult do_bench(const std::function<void()>& fn, const BenchOptions& options = {});

// The summary of samples (not empty), as do_bench computes it.
BenchResult summarize_samples(std::vector<double> samples_ms);

// "1.234 ms ±3.1%" style: the median and the relative spread.
std::string format_timing(const BenchResult& result);

}  // namespace tilec
