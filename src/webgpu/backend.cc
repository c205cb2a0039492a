#include "tilec/webgpu/backend.h"

#include "tilec/backend/module_registrations.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/gpu/simt_pipeline.h"
#include "tilec/gpu/simt_tile_ops.h"
#include "tilec/target/target_kind.h"
#include "tilec/webgpu/codegen_wgsl.h"
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
  return backend::BackendModule{
      .name = "webgpu",
      .target_kinds = {"webgpu"},
      .pipelines = {{"webgpu", gpu::make_simt_pipeline("webgpu", kDLCPU)}},
      .device_codegens = {{"webgpu", make_wgsl_device_codegen()}},
      .execution_backends = {wgpu},
      .supports_target = std::nullopt,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {},
  };
}

// The kind's `device` attribute: which WebGPU adapter the wgpu backend runs on.
void add_device_attribute() {
  auto kind = target::get_target_kind("webgpu");
  if (kind->find_attr("device")) return;
  target::TargetKind extended = *kind;
  extended.attrs.push_back({"device", target::AttrType::kString, std::nullopt,
                            "WebGPU adapter to run on: an index or a name fragment (tilec's wgpu "
                            "execution backend); empty: the first adapter"});
  target::register_target_kind(std::move(extended), true);
}

}  // namespace

backend::BackendModule make_webgpu_backend_module() {
  static const backend::BackendModule module = build_webgpu_backend_module();
  return module;
}

void register_webgpu_backend() {
  add_device_attribute();
  exec::register_execution_backend(wgpu_execution_backend());
  for (auto& impl : gpu::simt_tile_op_impls())
    backend::register_module_tile_op_impl(std::move(impl));
  backend::register_backend(make_webgpu_backend_module());
}

}  // namespace tilec::webgpu
