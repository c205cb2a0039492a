#include "tilec/target/kind_schema.h"

namespace tilec::target {

AttrSchema string_attr(std::string name, std::string description) {
  return {std::move(name), AttrType::kString, std::nullopt, std::move(description)};
}

AttrSchema string_list_attr(std::string name, std::string description) {
  return {std::move(name), AttrType::kStringList, std::nullopt, std::move(description)};
}

AttrSchema int_attr(std::string name, int64_t default_value, std::string description) {
  return {std::move(name), AttrType::kInt, TargetAttr{default_value}, std::move(description)};
}

std::vector<AttrSchema> gpu_limit_attrs(GpuLimits limits) {
  return {
      int_attr("max_threads_per_block", limits.max_threads_per_block, "most threads in one block"),
      int_attr("vector_bytes", limits.vector_bytes,
               "widest vector load/store of one thread in bytes (the SIMT lowering's "
               "vectorized copies and splits; 0 turns them off)"),
      int_attr("max_shared_memory_per_block", limits.max_shared_memory_per_block,
               std::move(limits.shared_memory_description)),
      int_attr("thread_warp_size", limits.thread_warp_size, "threads that execute in lockstep"),
      int_attr("private_bytes_per_thread", limits.private_bytes_per_thread,
               "bytes of registers (fragment registers) one thread may hold; the SIMT "
               "lowering refuses kernels whose fragments need more (0: unchecked)"),
      int_attr("subgroup_reduce", limits.subgroup_reduce,
               "1: the device code printer has subgroup (warp) reductions, which T.reduce_* "
               "then uses across threads (opencl: cl_khr_subgroups); 0: a shared-memory "
               "tree")};
}

std::vector<AttrSchema> grid_limit_attrs(int64_t x, int64_t y, int64_t z) {
  return {int_attr("max_grid_x", x, "most blocks along grid axis x"),
          int_attr("max_grid_y", y, "most blocks along grid axis y"),
          int_attr("max_grid_z", z, "most blocks along grid axis z")};
}

}  // namespace tilec::target
