#include "tilec/opencl/target_kind.h"

#include "tilec/target/kind_schema.h"

namespace tilec::opencl {

void register_opencl_target_kind() {
  target::TargetKind opencl{"opencl",
                            {target::string_attr("device", "OpenCL device name to prefer")},
                            {"opencl", "gpu"},
                            "OpenCL devices"};
  // OpenCL 1.2 has no query for private memory per work-item, so the default is a
  // documented figure between what PoCL's CPU work-group functions were seen to run and to
  // crash on: 32 KiB (TileLang's mamba chunk_state kernel runs with 17 KB per work-item;
  // its composable-index copy, 72 KB, crashes); GPU drivers spill to slow memory long
  // before. Shared memory is the device's: 0 until the device-limits normalizer fills in
  // the selected device's CL_DEVICE_LOCAL_MEM_SIZE.
  for (auto& limit : target::gpu_limit_attrs(
           {.max_threads_per_block = 256,
          .max_shared_memory_per_block = 0,
          .thread_warp_size = 1,
          .private_bytes_per_thread = 32 * 1024,
          .subgroup_reduce = 0,
          .shared_memory_description =
                "bytes of __local memory one work-group may use; 0 (the default): the "
                "selected device's CL_DEVICE_LOCAL_MEM_SIZE, 16384 when no OpenCL device is "
                "found"}))
    opencl.attrs.push_back(std::move(limit));
  // The int32 block index's limit on every axis (docs/semantics.md "Integer widths").
  constexpr int64_t kAxis = target::kMaxGridAxis;
  for (auto& limit : target::grid_limit_attrs(kAxis, kAxis, kAxis))
    opencl.attrs.push_back(std::move(limit));
  target::register_target_kind(std::move(opencl));
}

}  // namespace tilec::opencl
