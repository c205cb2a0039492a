#include "tilec/webgpu/backend.h"
#include "tilec/webgpu/module.h"

#include "tilec/backend/module_registrations.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/source_backend.h"
#include "tilec/gpu/simt_pipeline.h"
#include "tilec/gpu/simt_tile_ops.h"
#include "tilec/target/detect.h"
#include "tilec/target/kind_schema.h"
#include "tilec/webgpu/codegen_wgsl.h"
#include "tilec/webgpu/device_limits.h"
#include "tilec/webgpu/wgpu_backend.h"

namespace tilec::webgpu {

namespace {

constexpr int64_t kDLCPU = 1;  // the host entry takes host tensors and copies them over

backend::BackendModule build_webgpu_backend_module() {
  backend::ExecutionBackendSpec wgpu{
      .name = kWgpuBackendName,
      .is_available = [] { return exec::is_execution_backend_available(kWgpuBackendName); },
      .supports_target = std::nullopt,
      .enable_host_codegen = true,
      // The execution backend compiles the WGSL on the device it selects.
      .enable_device_compile = false,
  };
  // Without a WebGPU device, `auto` falls back to writing the sources (tilec compile shows
  // the WGSL; calling a kernel says nothing was built).
  backend::ExecutionBackendSpec source{.name = exec::kSourceBackendName,
                                       .is_available = {},
                                       .supports_target = std::nullopt,
                                       .enable_host_codegen = true,
                                       .enable_device_compile = false};
  return backend::BackendModule{
      .name = "webgpu",
      .target_kinds = {"webgpu"},
      .pipelines = {{"webgpu", gpu::make_simt_pipeline("webgpu", kDLCPU)}},
      .device_codegens = {{"webgpu", make_wgsl_device_codegen()}},
      .execution_backends = {wgpu, source},
      .supports_target = std::nullopt,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {},
  };
}

// The webgpu kind: the limits every SIMT kind declares, but those that are the device's
// (device_limits.h) default to "the device's": shared memory, threads per block and
// subgroup reductions (0, 0, -1), and the subgroup size is not a constant (WebGPU devices
// have 4 to 128 lanes); a `device` attribute says which WebGPU adapter the wgpu backend
// runs on. WebGPU documents no per-thread register limit; the CUDA-sized figure is a
// conservative stand-in.
void register_webgpu_target_kind() {
  target::TargetKind kind{"webgpu",
                          target::gpu_limit_attrs({.max_threads_per_block = 0,
                                                   .max_shared_memory_per_block = 0,
                                                   .thread_warp_size = 1,
                                                   .private_bytes_per_thread = 255 * 4,
                                                   .subgroup_reduce = -1}),
                          {"webgpu", "gpu"},
                          "WebGPU (WGSL)"};
  for (auto& attr : kind.attrs) {
    if (attr.name == "max_shared_memory_per_block") {
      attr.description =
          "bytes of workgroup memory one block may use; 0 (the default): the selected device's "
          "maxComputeWorkgroupStorageSize, 16384 (WebGPU's guaranteed minimum) without a device";
    } else if (attr.name == "max_threads_per_block") {
      attr.description =
          "most threads in one block; 0 (the default): the selected device's "
          "maxComputeInvocationsPerWorkgroup, 256 (WebGPU's guaranteed minimum) without a device";
    } else if (attr.name == "thread_warp_size") {
      attr.description = "threads that execute in lockstep; 1: not a constant on WebGPU";
    } else if (attr.name == "subgroup_reduce") {
      attr.description =
          "1: T.reduce_* combines across threads with WGSL's subgroupAdd/Max/Min; 0: the "
          "shared-memory tree; -1 (the default): 1 where the selected device has `subgroups`";
    }
  }
  kind.attrs.push_back(target::string_attr(
      "device",
      "WebGPU adapter to run on: an index or a name fragment (tilec's wgpu execution "
      "backend); empty: the first adapter"));
  // maxComputeWorkgroupsPerDimension: 65535 by default on every axis.
  for (auto& limit : target::grid_limit_attrs(65535, 65535, 65535))
    kind.attrs.push_back(std::move(limit));
  target::register_target_kind(std::move(kind));
}

}  // namespace

backend::BackendModule make_webgpu_backend_module() {
  static const backend::BackendModule module = build_webgpu_backend_module();
  return module;
}

void register_webgpu_backend() {
  register_webgpu_target_kind();
  target::register_target_normalizer(kDeviceLimitsNormalizerName, fill_webgpu_device_limits);
  exec::register_execution_backend(wgpu_execution_backend());
  for (auto& impl : gpu::simt_tile_op_impls())
    backend::register_module_tile_op_impl(std::move(impl));
  backend::register_backend(make_webgpu_backend_module());
}

}  // namespace tilec::webgpu
