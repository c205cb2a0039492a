// Subgroup (warp) operations of the SIMT lowering, as extern calls that every GPU
// printer supporting them maps to its own: OpenCL's cl_khr_subgroups
// (sub_group_reduce_add, get_sub_group_id, ...), CUDA's __shfl_xor_sync butterflies over
// a warp. A target declares that its printer maps them with the attribute
// `subgroup_reduce` (1: yes; each backend's target_kind.cc gives its kind a default): the
// SIMT T.reduce_* uses subgroups there and the shared-memory tree elsewhere. Subgroups
// are formed from the block's flat thread index (x fastest), as both APIs define them;
// where `thread_warp_size` is above 1 the subgroup size is that constant and the block
// must hold whole warps.
#pragma once

#include "tilec/ir/stmt.h"

#include <string>

namespace tilec::gpu {

inline constexpr const char* kSubgroupReduceAttr = "subgroup_reduce";

// int32 () -> which subgroup of the block the thread is in, its lane in it, the lanes
// per subgroup, the subgroups per block.
inline constexpr const char* kSubgroupId = "tilec_subgroup_id";
inline constexpr const char* kSubgroupLocalId = "tilec_subgroup_local_id";
inline constexpr const char* kSubgroupSize = "tilec_subgroup_size";
inline constexpr const char* kNumSubgroups = "tilec_num_subgroups";
// (x) -> the sum / max / min of x over the subgroup's lanes, in every lane
// ("tilec_subgroup_reduce_sum", ...). Every lane of the subgroup must call it.
inline constexpr const char* kSubgroupReducePrefix = "tilec_subgroup_reduce_";

// The combination a subgroup reduce of `kind` performs ("sum", "max", "min"; abs is
// applied to the elements before).
std::string subgroup_combination(ir::ReduceKind kind);

// Whether `name` is one of the calls above; whether `e` calls one.
bool is_subgroup_call(const std::string& name);
bool calls_subgroup_op(const ir::Expr& e);

}  // namespace tilec::gpu
