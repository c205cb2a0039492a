#include "tilec/metal/backend.h"
#include "tilec/metal/module.h"
#include "tilec/metal/target_kind.h"

#include "tilec/backend/module_registrations.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/exec/emulator.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/source_backend.h"
#include "tilec/gpu/simt_pipeline.h"
#include "tilec/gpu/simt_tile_ops.h"
#include "tilec/metal/codegen_metal.h"
#include "tilec/metal/emulator_dialect.h"
#include "tilec/metal/metal_context.h"
#include "tilec/metal/simdgroup_gemm.h"

namespace tilec::metal {

namespace {

constexpr int64_t kDLCPU = 1;  // the host entry takes host tensors and copies them over

backend::BackendModule build_metal_backend_module() {
  // The source: the MSL and the host C only (no Metal runtime here, see README).
  backend::ExecutionBackendSpec source{.name = exec::kSourceBackendName,
                                       .is_available = {},
                                       .supports_target = std::nullopt,
                                       .enable_host_codegen = true,
                                       .enable_device_compile = false};
  // The MSL run on the CPU; `auto` never reaches it (source is always available).
  backend::ExecutionBackendSpec emulator{
      .name = exec::kEmulatorBackendName,
      .is_available =
          [] { return exec::is_execution_backend_available(exec::kEmulatorBackendName); },
      .supports_target = std::nullopt,
      .enable_host_codegen = true,
      .enable_device_compile = false};
  return backend::BackendModule{
      .name = "metal",
      .target_kinds = {"metal"},
      .pipelines = {{"metal", metal_pipeline()}},
      .device_codegens = {{"metal", make_metal_device_codegen()}},
      .execution_backends = {source, emulator},
      .supports_target = std::nullopt,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {{"metal", {make_metal_context_hook()}}},
      .callbacks = {},
  };
}

}  // namespace

const transform::PassPipeline& metal_pipeline() {
  static const transform::PassPipeline pipeline = gpu::make_simt_pipeline("metal", kDLCPU);
  return pipeline;
}

backend::BackendModule make_metal_backend_module() {
  // Copies of one manifest, so they hold the same callables and registering the metal
  // module again is a no-op (target/callable_identity.h).
  static const backend::BackendModule module = build_metal_backend_module();
  return module;
}

void register_metal_backend() {
  register_metal_target_kind();
  for (auto& impl : gpu::simt_tile_op_impls())
    backend::register_module_tile_op_impl(std::move(impl));
  backend::register_module_tile_op_impl(simdgroup_gemm_impl());
  exec::register_emulator_dialect(metal_emulator_dialect());
  backend::register_backend(make_metal_backend_module());
}

}  // namespace tilec::metal
