// Building blocks for a target kind's schema, for the backends that register their kinds
// (src/<backend>/target_kind.cc) and for tests. `gpu_limit_attrs` is the set of limits
// every GPU kind declares, so the shared SIMT lowering reads them without knowing the
// kind (docs/semantics.md, "Targets").
#pragma once

#include "tilec/target/target_kind.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec::target {

AttrSchema string_attr(std::string name, std::string description);
AttrSchema string_list_attr(std::string name, std::string description);
AttrSchema int_attr(std::string name, int64_t default_value, std::string description);

// The defaults of one GPU kind's limits.
struct GpuLimits {
  int64_t max_threads_per_block = 0;
  int64_t max_shared_memory_per_block = 0;
  int64_t thread_warp_size = 0;
  int64_t private_bytes_per_thread = 0;  // 0: unchecked
  int64_t subgroup_reduce = 0;           // 1: the printer has subgroup (warp) reductions
  int64_t vector_bytes = 16;             // 0 turns vectorized copies off
  // Replaces the plain description where the default is not a figure ("the device's").
  std::string shared_memory_description = "bytes of shared memory one block may use";
};

// max_threads_per_block, vector_bytes, max_shared_memory_per_block, thread_warp_size,
// private_bytes_per_thread, subgroup_reduce: all ints, with `limits` as defaults.
std::vector<AttrSchema> gpu_limit_attrs(GpuLimits limits);

// max_grid_x/y/z: the most blocks along each grid axis, which split_host_device checks
// constant extents against (transform/grid_limits.h; docs/semantics.md "Integer widths").
// kMaxGridAxis (2^31 - 1, the int32 block index) is the most any kind may declare.
inline constexpr int64_t kMaxGridAxis = 2147483647;
std::vector<AttrSchema> grid_limit_attrs(int64_t x, int64_t y, int64_t z);

}  // namespace tilec::target
