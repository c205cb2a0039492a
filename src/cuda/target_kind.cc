#include "tilec/cuda/target_kind.h"

#include "tilec/target/kind_schema.h"

namespace tilec::cuda {

void register_cuda_target_kind() {
  target::TargetKind cuda{"cuda",
                          {target::string_attr("arch", "compute capability, e.g. sm_90")},
                          {"cuda", "gpu"},
                          "NVIDIA GPUs"};
  // 255 32-bit registers per thread.
  for (auto& limit : target::gpu_limit_attrs({.max_threads_per_block = 1024,
                     .max_shared_memory_per_block = 49152,
                     .thread_warp_size = 32,
                     .private_bytes_per_thread = 255 * 4,
                     .subgroup_reduce = 1}))
    cuda.attrs.push_back(std::move(limit));
  // gridDim.x up to 2^31 - 1, y and z up to 65535.
  for (auto& limit : target::grid_limit_attrs(target::kMaxGridAxis, 65535, 65535))
    cuda.attrs.push_back(std::move(limit));
  cuda.attrs.push_back(
      target::int_attr("registers_per_block", 65536, "32-bit registers per block"));
  target::register_target_kind(std::move(cuda));
}

}  // namespace tilec::cuda
