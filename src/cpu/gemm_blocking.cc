#include "tilec/cpu/gemm_blocking.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace tilec::cpu {

namespace {

// Per core and cycle on the CPUs this is tuned for (Intel since Skylake-SP, AMD since
// Zen 4): two vector FMAs, two vector loads, and an FMA result 4 cycles after its
// inputs, so 8 independent accumulators keep both FMA ports busy.
constexpr double kFmaPorts = 2, kLoadPorts = 2, kFmaLatency = 4;
// Each row of a block broadcasts A from its own address, and both compilers keep one
// general register per row; x86-64 has 16, and the k loop needs its index and B's and
// the stack's. Above 8 rows GCC 12 spilled row addresses and reloaded them every k step.
// Measured on Zen 5 (AVX-512), 1024^3 with 64 x 64 tiles, 1 thread: 14 x 2 (the best
// cost below without this bound) gave 0.93 / 0.89 of OpenBLAS on c / llvm, 8 x 2 gave
// 0.94 / 0.95, and 8 x 2 was ahead in 15 of the 16 GEMM benchmarks on 1 and 2 threads.
constexpr int64_t kMaxRows = 8, kMaxGroups = 4;
// What a block costs besides its k loop, per k step of a chunk this long: loading and
// storing its accumulators and starting its loops.
constexpr double kNominalChunk = 32, kBlockStartCycles = 10;
// The model cannot tell apart shapes this close in cost; what it leaves out favours a
// block that divides the tile: every remainder block is its own loop nest, with its own
// accumulator loads and stores and less overlap of one block's tail with the next.
// Measured on Zen 5 (AVX-512), 64 x 64 tiles: 8 x 2 (no remainder) 0.94-0.95 of OpenBLAS
// on c and llvm, against 0.91-0.92 / 0.92-0.94 for 6 x 4 (4 rows left over), whose
// estimate is 1.1% lower. On AVX2 BLIS's 6 x 2 stays: 4 x 2 is 2.1% dearer.
constexpr double kModelTolerance = 0.015;
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
  struct Candidate {
    MicroKernelShape shape;
    double cost;
    bool divides;  // no remainder blocks
  };
  std::vector<Candidate> candidates;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int64_t groups = 1; groups <= kMaxGroups; ++groups) {
    for (int64_t rows = 1; rows <= kMaxRows; ++rows) {
      if (!fits(rows, groups, unit.registers)) break;
      MicroKernelShape shape{rows, groups, lanes};
      double cost = micro_kernel_cycles_per_k(shape, m, n);
      candidates.push_back({shape, cost, m % rows == 0 && n % shape.columns() == 0});
      best_cost = std::min(best_cost, cost);
    }
  }
  if (candidates.empty()) return {1, 1, lanes};
  // Within kModelTolerance of the best estimate, a shape without remainder blocks first,
  // then the cheaper; ties go to the larger block (fewer blocks, fewer loop starts), then
  // to fewer groups (fewer loads of B per k).
  auto better = [&](const Candidate& a, const Candidate& b) {
    if (a.divides != b.divides) return a.divides;
    if (std::fabs(a.cost - b.cost) > 1e-9) return a.cost < b.cost;
    int64_t area_a = a.shape.rows * a.shape.groups, area_b = b.shape.rows * b.shape.groups;
    if (area_a != area_b) return area_a > area_b;
    return a.shape.groups < b.shape.groups;
  };
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) {
    if (c.cost > best_cost * (1 + kModelTolerance) + 1e-9) continue;
    if (best == nullptr || better(c, *best)) best = &c;
  }
  return best->shape;
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
