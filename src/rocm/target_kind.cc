#include "tilec/rocm/target_kind.h"

#include "tilec/target/kind_schema.h"

namespace tilec::rocm {

void register_hip_target_kind() {
  target::TargetKind hip{"hip",
                         {target::string_attr("mcpu", "AMD GPU architecture, e.g. gfx942")},
                         {"rocm", "gpu"},
                         "AMD GPUs through ROCm/HIP"};
  // The rocm printer has wavefront reductions (__shfl_xor); thread_warp_size is the
  // arch's wavefront once the wavefront normalizer (hip_target.h) has run (64 on CDNA, 32
  // on RDNA). 256 VGPRs of 4 bytes per lane.
  for (auto& limit : target::gpu_limit_attrs({.max_threads_per_block = 1024,
                     .max_shared_memory_per_block = 65536,
                     .thread_warp_size = 64,
                     .private_bytes_per_thread = 256 * 4,
                     .subgroup_reduce = 1}))
    hip.attrs.push_back(std::move(limit));
  // CUDA's figures: hipDeviceProp_t.maxGridSize is at least that on AMD GPUs.
  for (auto& limit : target::grid_limit_attrs(target::kMaxGridAxis, 65535, 65535))
    hip.attrs.push_back(std::move(limit));
  target::register_target_kind(std::move(hip));
}

}  // namespace tilec::rocm
