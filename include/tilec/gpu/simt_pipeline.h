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

// gpu.lower_simt, simplify, gpu.plan_barriers, [tilec.bounds_check,] flatten_buffers,
// gpu.vectorize_lanes, simplify.
std::vector<transform::Pass> simt_passes(bool bounds_check = false);

// A backend's own passes around the shared ones: `before` runs on the tile IR ahead of
// gpu.lower_simt, `after` on the flat per-thread code ahead of the host/device split.
struct SimtPipelineExtras {
  std::vector<transform::Pass> before, after;
  // The target's codegen prints bounds calls (ir/bounds_call.h): transform::bounds_check_pass
  // runs after the barriers are planned, while accesses still have one index per
  // dimension, so the pipeline honours tilec.bounds_check.
  bool bounds_check = false;
};

// extras.before, simt_passes(), extras.after, then split_host_device (device launch,
// tensors of DLPack device type host_device_type that the host entry accepts).
transform::PassPipeline make_simt_pipeline(std::string name, int64_t host_device_type,
                                           SimtPipelineExtras extras = {});

}  // namespace tilec::gpu
