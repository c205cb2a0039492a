// The cpu backend's lowering pipeline: tile ops to loops, simplify, flatten,
// vectorize, then the host/device split with blocks run as a range per task. Tile ops
// lower through the cpu module's implementations (tile_ops.h), which
// register_cpu_backend() registers (tilec::initialize() runs it); without them the
// generic ones apply, which keep thread-binding loops the C codegen cannot print.
#pragma once

#include "tilec/transform/pass_pipeline.h"
#include "tilec/transform/split_host_device.h"

namespace tilec::cpu {

// Device body of a T.Kernel on the CPU: blocks [block_begin, block_end) of the
// flattened grid run in order; per-block allocations are hoisted out of the loop.
transform::DeviceKernelBody bind_blocks_to_task_range(const ir::KernelNode& kernel);
transform::PassPipeline make_cpu_pipeline();

}  // namespace tilec::cpu
