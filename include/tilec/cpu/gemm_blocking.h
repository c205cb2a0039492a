// How the cpu gemm lowering (gemm_microkernel.cc) blocks one T.gemm for a CPU's vector
// unit and caches (cpu_resources.h).
//  - The micro-kernel keeps a C block of `rows` x (`groups` x `lanes`) elements in
//    rows x groups vector accumulators across its k loop; `lanes` is one vector register
//    of the accumulator dtype (at least 32-bit lanes: 16-bit floats compute in float).
//    choose_micro_kernel picks rows and groups that fit the register file (accumulators,
//    one register per group of B and one broadcast of A, one spare; at most 8 rows, whose
//    addresses take general registers) and minimise a cycle
//    estimate of the whole M x N tile (FMA ports, load ports and FMA latency per k, plus
//    the remainder blocks an M or N that the block does not divide leaves); M or N
//    nullopt: symbolic, estimated as large. Pass-config keys cpu.gemm_micro_rows and
//    cpu.gemm_micro_groups (0: derive) override the choice.
//  - The k loop runs in chunks of k_chunk(): the k_chunk x (groups x lanes) panel of B a
//    micro-kernel streams stays within half the L1 data cache, so it is still there for
//    the next block of rows. m_chunk(): the m_chunk x k_chunk block of A stays within
//    half of L2 across the column blocks (and a packed one within kMaxPanelBytes, as it
//    lives on the stack); n_chunk(): the same for a packed k_chunk x n_chunk panel of B.
#pragma once

#include "tilec/cpu/cpu_resources.h"
#include "tilec/ir/dtype.h"

#include <cstdint>
#include <optional>

namespace tilec::cpu {

inline constexpr const char* kGemmMicroRowsConfigKey = "cpu.gemm_micro_rows";
inline constexpr const char* kGemmMicroGroupsConfigKey = "cpu.gemm_micro_groups";
inline constexpr int64_t kMaxPanelBytes = 128 * 1024;

struct MicroKernelShape {
  int64_t rows = 1, groups = 1, lanes = 1;
  int64_t columns() const { return groups * lanes; }
};

int64_t lanes_for(const VectorUnit& unit, ir::DataType acc);

MicroKernelShape choose_micro_kernel(const VectorUnit& unit, ir::DataType acc,
                                     std::optional<int64_t> M, std::optional<int64_t> N);

// Estimated cycles of one k step over an M x N tile with `shape` (the model above).
double micro_kernel_cycles_per_k(const MicroKernelShape& shape, int64_t M, int64_t N);

int64_t k_chunk(const CacheSizes& caches, const MicroKernelShape& shape, ir::DataType acc);
int64_t m_chunk(const CacheSizes& caches, const MicroKernelShape& shape, int64_t kc,
                int64_t element_bytes, bool packed);
int64_t n_chunk(const CacheSizes& caches, const MicroKernelShape& shape, int64_t kc,
                int64_t element_bytes);

}  // namespace tilec::cpu
