// What every GPU backend's pass pipeline lists, in this order: simt_passes() (tile ops
// and threads to SIMT code with planned barriers, then flattened), then the host/device
// split with bind_blocks_to_grid, which binds the block variables to the grid axes
// ("blockIdx.x", ...) under the kernel's shared allocations, and launches on a device.
#pragma once

#include "tilec/transform/pass_pipeline.h"
#include "tilec/transform/split_host_device.h"

#include <vector>

namespace tilec::gpu {

transform::DeviceKernelBody bind_blocks_to_grid(const ir::KernelNode& kernel);

// gpu.lower_simt, simplify, gpu.plan_barriers, flatten_buffers, simplify.
std::vector<transform::Pass> simt_passes();

// A backend's own passes around the shared ones: `before` runs on the tile IR ahead of
// gpu.lower_simt, `after` on the flat per-thread code ahead of the host/device split.
struct SimtPipelineExtras {
  std::vector<transform::Pass> before, after;
};

// extras.before, simt_passes(), extras.after, then split_host_device (device launch,
// tensors of DLPack device type host_device_type that the host entry accepts).
transform::PassPipeline make_simt_pipeline(std::string name, int64_t host_device_type,
                                           SimtPipelineExtras extras = {});

}  // namespace tilec::gpu
