// The smallest complete CPU-family backend plugin: target kind `mincpu`, the cpu backend's
// pipeline and C device printer, kernels run by the shared `native` execution backend.
// Built and run against the installed package by tests/package (README, "Adding a
// backend", quotes this file whole).
#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"
#include "tilec/codegen/device_source.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cpu/codegen_c_device.h"
#include "tilec/cpu/pipeline.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/target/kind_schema.h"

#include <memory>

namespace mincpu {

using namespace tilec;

backend::BackendModule make_module() {
  backend::ExecutionBackendSpec native{
      .name = "native",  // compiles host and device code together, runs blocks on threads
      .is_available = [] { return exec::is_execution_backend_available("native"); },
      .supports_target = std::nullopt,
      .enable_host_codegen = true,
      .enable_device_compile = false,
  };
  return backend::BackendModule{
      .name = "mincpu",
      .target_kinds = {"mincpu"},
      // The cpu lowering: tile ops to loops, the host/device split with blocks as task
      // ranges. The kind's `cpu` key gives it the cpu module's tile-op implementations.
      .pipelines = {{"mincpu", cpu::make_cpu_pipeline()}},
      // cpu::CodeGenCDevice, not plain CodeGenC: it adds the task function
      // <kernel>_task that the host entry calls (tilec/codegen/c_launch_abi.h).
      .device_codegens = {{"mincpu", codegen::make_device_codegen(
                                         "mincpu_c",
                                         [](const target::Target&) {
                                           return std::make_unique<cpu::CodeGenCDevice>();
                                         })}},
      .execution_backends = {native},
      .supports_target = std::nullopt,
      // Used with --target-host c; the default host is `llvm`, whose codegen the cpu
      // module registers.
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {},
  };
}

void init(backend::PluginRegistrar&) {
  // The kind first: register_backend checks that the module's kinds exist. If anything
  // throws, the loader undoes both.
  target::register_target_kind({"mincpu",
                                {target::string_attr("mcpu", "CPU to tune the C compiler for")},
                                {"mincpu", "cpu"},
                                "the smallest CPU-family plugin (examples/plugin)"});
  backend::register_backend(make_module());
}

}  // namespace mincpu

TILEC_DEFINE_PLUGIN(mincpu::init)
