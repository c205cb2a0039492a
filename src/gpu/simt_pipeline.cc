#include "tilec/gpu/simt_pipeline.h"

#include "tilec/gpu/lower_simt.h"
#include "tilec/gpu/plan_barriers.h"
#include "tilec/gpu/vectorize_lanes.h"
#include "tilec/transform/bounds_check.h"
#include "tilec/transform/flatten_buffers.h"
#include "tilec/transform/simplify.h"

namespace tilec::gpu {

using namespace ir;

transform::DeviceKernelBody bind_blocks_to_grid(const KernelNode& kernel) {
  static const char* kTags[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
  std::vector<Buffer> shared;
  Stmt body = kernel.body;
  while (auto* a = body.as<AllocateNode>()) {
    if (a->buffer->scope != StorageScope::kShared) break;
    shared.push_back(a->buffer);
    body = a->body;
  }
  for (size_t d = kernel.block_vars.size(); d-- > 0;) {
    const Var& v = kernel.block_vars[d];
    auto loop = copy_node(for_loop(v, make_zero(v.dtype()), cast(v.dtype(), kernel.grid[d]), body,
                                   ForKind::kThreadBinding, 1, kernel.span)
                              .as<ForNode>());
    loop->thread_tag = kTags[d];
    body = Stmt(loop);
  }
  // Workgroup memory is declared at the top of the device function.
  for (size_t i = shared.size(); i-- > 0;) body = allocate(shared[i], body);
  return {{}, body};
}

std::vector<transform::Pass> simt_passes(bool bounds_check) {
  std::vector<transform::Pass> passes = {lower_simt_pass(), transform::simplify_pass(),
                                         plan_barriers_pass()};
  if (bounds_check) passes.push_back(transform::bounds_check_pass());
  for (auto& p :
       {transform::flatten_buffers_pass(), vectorize_lanes_pass(), transform::simplify_pass()})
    passes.push_back(p);
  return passes;
}

transform::PassPipeline make_simt_pipeline(std::string name, int64_t host_device_type,
                                           SimtPipelineExtras extras) {
  transform::register_device_launch_config_keys();
  std::vector<transform::Pass> passes = std::move(extras.before);
  for (auto& p : simt_passes(extras.bounds_check)) passes.push_back(std::move(p));
  for (auto& p : extras.after) passes.push_back(std::move(p));
  transform::SplitHostDeviceOptions split{host_device_type, bind_blocks_to_grid, true};
  passes.push_back(transform::split_host_device_pass(split));
  return transform::PassPipeline(std::move(name), std::move(passes));
}

}  // namespace tilec::gpu
