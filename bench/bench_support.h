// Helpers the benchmarks share: wall-clock seconds, one timed call and random float32
// inputs. A timed call is tilec::do_bench's (tilec/engine/bench.h, what `tilec bench`
// and `tilec tune` use), so the harness and the tools time kernels the same way.
#pragma once

#include "tilec/engine/bench.h"
#include "tilec/ir/tensor.h"

#include <functional>

#include <chrono>
#include <cstdint>
#include <vector>

namespace tilec::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds of one call of fn, timed as do_bench times each of its repetitions.
inline double timed_call(const std::function<void()>& fn) {
  return do_bench(fn, BenchOptions{0, 1}).median_ms * 1e-3;
}

inline ir::HostTensor random_tensor(std::vector<int64_t> shape, uint64_t seed) {
  ir::HostTensor tensor(ir::DataType::Float32(), std::move(shape));
  ir::fill_random(tensor.view(), seed);
  return tensor;
}

}  // namespace tilec::bench
