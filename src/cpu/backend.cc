#include "tilec/cpu/backend.h"

#include "tilec/backend/module_registrations.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cpu/codegen_c_device.h"
#include "tilec/cpu/detector.h"
#include "tilec/cpu/pipeline.h"
#include "tilec/cpu/tile_ops.h"
#include "tilec/exec/execution_backend.h"

namespace tilec::cpu {

backend::BackendModule make_cpu_backend_module() {
  backend::ExecutionBackendSpec native{
      .name = "native",
      .is_available = [] { return exec::is_execution_backend_available("native"); },
      .supports_target = std::nullopt,
      .enable_host_codegen = true,
      // Host and device C are compiled together by the execution backend.
      .enable_device_compile = false,
  };
  return backend::BackendModule{
      .name = "cpu",
      .target_kinds = {"c"},
      .pipelines = {{"c", make_cpu_pipeline()}},
      .device_codegens = {{"c", make_c_device_codegen()}},
      .execution_backends = {native},
      .supports_target = std::nullopt,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {},
  };
}

void register_cpu_backend() {
  backend::register_module_target_detector(kCpuDetectorName, detect_cpu,
                                           target::kHostDetectorPriority);
  for (auto& impl : cpu_tile_op_impls()) backend::register_module_tile_op_impl(std::move(impl));
  backend::register_backend(make_cpu_backend_module());
}

}  // namespace tilec::cpu
