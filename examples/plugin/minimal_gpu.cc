// The smallest complete GPU-family backend plugin: target kind `mingpu` with the limits
// every GPU kind declares, the shared SIMT lowering, the CUDA printer, and two execution
// backends: `source` (writes the sources) and `emulator` (runs the CUDA source on CPU
// fibers, so it runs without a GPU). Built and run against the installed package by
// tests/package (README, "Adding a backend", quotes this file whole).
#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"
#include "tilec/backend/module_registrations.h"
#include "tilec/codegen/device_source.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cuda/codegen_cuda.h"
#include "tilec/exec/emulator.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/source_backend.h"
#include "tilec/gpu/simt_pipeline.h"
#include "tilec/gpu/simt_tile_ops.h"
#include "tilec/target/kind_schema.h"

#include <memory>

namespace mingpu {

using namespace tilec;

constexpr int64_t kDLCPU = 1;  // host entries take host tensors and copy them over

backend::BackendModule make_module() {
  auto spec = [](std::string name) {
    return backend::ExecutionBackendSpec{
        .name = name,
        .is_available = [name] { return exec::is_execution_backend_available(name); },
        .supports_target = std::nullopt,
        .enable_host_codegen = true,
        .enable_device_compile = false,
    };
  };
  return backend::BackendModule{
      .name = "mingpu",
      .target_kinds = {"mingpu"},
      .pipelines = {{"mingpu", gpu::make_simt_pipeline("mingpu", kDLCPU)}},
      .device_codegens = {{"mingpu", codegen::make_device_codegen(
                                         "mingpu_cuda",
                                         [](const target::Target&) {
                                           return std::make_unique<cuda::CodeGenCUDA>();
                                         })}},
      // In `auto` order: the emulator when asked for by name, else the sources.
      .execution_backends = {spec(exec::kSourceBackendName), spec(exec::kEmulatorBackendName)},
      .supports_target = std::nullopt,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {},
  };
}

void init(backend::PluginRegistrar&) {
  target::TargetKind kind{"mingpu", {}, {"mingpu", "gpu"}, "the smallest GPU-family plugin"};
  kind.attrs = target::gpu_limit_attrs({.max_threads_per_block = 1024,
                                        .max_shared_memory_per_block = 49152,
                                        .thread_warp_size = 32,
                                        .private_bytes_per_thread = 1020,
                                        .subgroup_reduce = 1});
  target::register_target_kind(std::move(kind));
  // The SIMT lowering's tile ops (copy, fill, reduce, gemm) for every `gpu` kind.
  for (auto& impl : gpu::simt_tile_op_impls())
    backend::register_module_tile_op_impl(std::move(impl));
  backend::register_backend(make_module());
}

}  // namespace mingpu

TILEC_DEFINE_PLUGIN(mingpu::init)
