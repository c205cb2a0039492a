#include "tilec/metal/target_kind.h"

#include "tilec/target/kind_schema.h"

namespace tilec::metal {

void register_metal_target_kind() {
  // Metal documents no per-thread register limit; the CUDA-sized figure (255 32-bit
  // registers) is a conservative stand-in.
  target::TargetKind metal{"metal",
                           target::gpu_limit_attrs({.max_threads_per_block = 1024,
                                                    .max_shared_memory_per_block = 32768,
                                                    .thread_warp_size = 32,
                                                    .private_bytes_per_thread = 255 * 4,
                                                    .subgroup_reduce = 1}),
                           {"metal", "gpu"},
                           "Apple GPUs"};
  // Metal documents no smaller per-axis threadgroup count; CUDA's figures are the
  // portable ones.
  for (auto& limit : target::grid_limit_attrs(target::kMaxGridAxis, 65535, 65535))
    metal.attrs.push_back(std::move(limit));
  target::register_target_kind(std::move(metal));
}

}  // namespace tilec::metal
