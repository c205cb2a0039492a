#include "tilec/cpu/gemm_blocking.h"

#include <algorithm>
#include <cmath>

namespace tilec::cpu {

namespace {

// Per core and cycle on the CPUs this is tuned for (Intel since Skylake-SP, AMD since
// Zen 4): two vector FMAs, two vector loads, and an FMA result 4 cycles after its
// inputs, so 8 independent accumulators keep both FMA ports busy.
constexpr double kFmaPorts = 2, kLoadPorts = 2, kFmaLatency = 4;
constexpr int64_t kMaxRows = 16, kMaxGroups = 4;
// What a block costs besides its k loop, per k step of a chunk this long: loading and
// storing its accumulators and starting its loops.
constexpr double kNominalChunk = 32, kBlockStartCycles = 10;
// A symbolic M or N is estimated at this size.
constexpr int64_t kSymbolicExtent = 4096;

double block_cycles(int64_t rows, int64_t groups) {
  double fma = double(rows * groups) / kFmaPorts;
  double loads = double(rows + groups) / kLoadPorts;
  double per_k = std::max({fma, loads, kFmaLatency});
  return per_k + (2.0 * double(rows * groups) + kBlockStartCycles) / kNominalChunk;
}

bool fits(int64_t rows, int64_t groups, int64_t registers) {
  // accumulators + one vector of B per group + the broadcast of A, one register spare
  return rows * groups + groups + 1 <= registers - 1;
}

}  // namespace

int64_t lanes_for(const VectorUnit& unit, ir::DataType acc) {
  return std::max<int64_t>(1, unit.bytes / std::max<int64_t>(4, acc.bits / 8));
}

double micro_kernel_cycles_per_k(const MicroKernelShape& s, int64_t M, int64_t N) {
  auto rows_cost = [&](int64_t groups) {
    double cost = double(M / s.rows) * block_cycles(s.rows, groups);
    if (M % s.rows) cost += block_cycles(M % s.rows, groups);
    return cost;
  };
  double cost = double(N / s.columns()) * rows_cost(s.groups);
  int64_t rest = N % s.columns();
  if (rest / s.lanes) cost += rows_cost(rest / s.lanes);
  if (rest % s.lanes) cost += rows_cost(1);
  return cost;
}

MicroKernelShape choose_micro_kernel(const VectorUnit& unit, ir::DataType acc,
                                     std::optional<int64_t> M, std::optional<int64_t> N) {
  const int64_t lanes = lanes_for(unit, acc);
  const int64_t m = M.value_or(kSymbolicExtent), n = N.value_or(kSymbolicExtent);
  MicroKernelShape best{1, 1, lanes};
  double best_cost = micro_kernel_cycles_per_k(best, m, n);
  for (int64_t groups = 1; groups <= kMaxGroups; ++groups) {
    for (int64_t rows = 1; rows <= kMaxRows; ++rows) {
      if (!fits(rows, groups, unit.registers)) break;
      MicroKernelShape shape{rows, groups, lanes};
      double cost = micro_kernel_cycles_per_k(shape, m, n);
      // Ties go to the larger block (fewer blocks, fewer loop starts).
      if (cost < best_cost - 1e-9 ||
          (std::fabs(cost - best_cost) <= 1e-9 && rows * groups > best.rows * best.groups)) {
        best = shape;
        best_cost = cost;
      }
    }
  }
  return best;
}

int64_t k_chunk(const CacheSizes& caches, const MicroKernelShape& shape, ir::DataType acc) {
  int64_t bytes = std::max<int64_t>(4, acc.bits / 8);
  int64_t kc = caches.l1d / 2 / (shape.columns() * bytes);
  return std::max<int64_t>(16, kc / 16 * 16);
}

int64_t m_chunk(const CacheSizes& caches, const MicroKernelShape& shape, int64_t kc,
                int64_t element_bytes, bool packed) {
  int64_t budget = caches.l2 / 2;
  if (packed) budget = std::min(budget, kMaxPanelBytes);
  int64_t mc = budget / (kc * element_bytes);
  return std::max(shape.rows, mc / shape.rows * shape.rows);
}

int64_t n_chunk(const CacheSizes& caches, const MicroKernelShape& shape, int64_t kc,
                int64_t element_bytes) {
  int64_t budget = std::min(caches.l2 / 2, kMaxPanelBytes);
  int64_t nc = budget / (kc * element_bytes);
  return std::max(shape.columns(), nc / shape.columns() * shape.columns());
}

}  // namespace tilec::cpu
