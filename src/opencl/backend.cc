#include "tilec/opencl/backend.h"
#include "tilec/opencl/module.h"
#include "tilec/opencl/target_kind.h"

#include "tilec/backend/module_registrations.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/gpu/simt_pipeline.h"
#include "tilec/gpu/simt_tile_ops.h"
#include "tilec/opencl/codegen_opencl.h"
#include "tilec/opencl/device_limits.h"
#include "tilec/opencl/opencl_execution_backend.h"
#include "tilec/target/detect.h"

namespace tilec::opencl {

namespace {

constexpr int64_t kDLCPU = 1;  // the host entry takes host tensors and copies them over

backend::BackendModule build_opencl_backend_module() {
  backend::ExecutionBackendSpec opencl{
      .name = opencl::kOpenCLBackendName,
      .is_available =
          [] { return exec::is_execution_backend_available(opencl::kOpenCLBackendName); },
      .supports_target = std::nullopt,
      .enable_host_codegen = true,
      // The execution backend compiles the OpenCL C for the device it selects.
      .enable_device_compile = false,
  };
  return backend::BackendModule{
      .name = "opencl",
      .target_kinds = {"opencl"},
      .pipelines = {{"opencl", gpu::make_simt_pipeline("opencl", kDLCPU)}},
      .device_codegens = {{"opencl", make_opencl_device_codegen()}},
      .execution_backends = {opencl},
      .supports_target = std::nullopt,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {},
  };
}

}  // namespace

backend::BackendModule make_opencl_backend_module() {
  // Copies of one manifest, so they hold the same callables and registering the opencl
  // module again is a no-op (target/callable_identity.h).
  static const backend::BackendModule module = build_opencl_backend_module();
  return module;
}

void register_opencl_backend() {
  register_opencl_target_kind();
  for (auto& impl : gpu::simt_tile_op_impls())
    backend::register_module_tile_op_impl(std::move(impl));
  target::register_target_normalizer(kDeviceLimitsNormalizerName, fill_opencl_device_limits);
  exec::register_execution_backend(opencl_execution_backend());
  backend::register_backend(make_opencl_backend_module());
}

}  // namespace tilec::opencl
