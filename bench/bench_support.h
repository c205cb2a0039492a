// Helpers the benchmarks share: wall-clock seconds and random float32 inputs.
#pragma once

#include "tilec/ir/tensor.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace tilec::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline ir::HostTensor random_tensor(std::vector<int64_t> shape, uint64_t seed) {
  ir::HostTensor tensor(ir::DataType::Float32(), std::move(shape));
  ir::fill_random(tensor.view(), seed);
  return tensor;
}

}  // namespace tilec::bench
