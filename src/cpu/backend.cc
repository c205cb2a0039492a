#include "tilec/cpu/backend.h"
#include "tilec/cpu/module.h"
#include "tilec/cpu/target_kinds.h"

#include "tilec/backend/backend_error.h"
#include "tilec/backend/module_registrations.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cpu/codegen_c_device.h"
#include "tilec/cpu/detector.h"
#include "tilec/cpu/pipeline.h"
#include "tilec/cpu/tile_ops.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/target/detect.h"
#include "tilec/target/llvm_support.h"

#ifdef TILEC_HAVE_LLVM
#include "tilec/cpu/llvm_codegen.h"
#endif

namespace tilec::cpu {

namespace {

#ifdef TILEC_HAVE_LLVM
bool is_llvm_target(const target::Target& target) {
  return target.kind() == "llvm";
}
#else
// A build without LLVM still owns the `llvm` kind, so asking for it says why it cannot
// run instead of "no backend for kind llvm": at resolution (a normalizer, so `tilec
// resolve` and every target or host given as `llvm` fail before lowering) and, for callers
// that hand the module an unnormalized target, at device codegen.
[[noreturn]] void throw_llvm_not_built(const target::Target& target) {
  throw backend::BackendError(
      "target '" + target.str() +
      "' needs LLVM, but this tilec was built without it (-DTILEC_LLVM=OFF); use --target c, "
      "or rebuild with -DTILEC_LLVM=ON (Debian package llvm-16-dev)");
}
backend::CodeArtifact llvm_not_built(const ir::IRModule&, const target::Target& target) {
  throw_llvm_not_built(target);
}
std::optional<target::Target> reject_llvm_targets(const target::Target& target) {
  if (target.kind() == "llvm") throw_llvm_not_built(target);
  return std::nullopt;
}
#endif

backend::BackendModule build_cpu_backend_module() {
  backend::ExecutionBackendSpec native{
      .name = "native",
      .is_available = [] { return exec::is_execution_backend_available("native"); },
      .supports_target = std::nullopt,
      .enable_host_codegen = true,
      // Host and device code are compiled together by the execution backend.
      .enable_device_compile = false,
  };
  backend::BackendModule module{
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
#ifdef TILEC_HAVE_LLVM
  // `llvm`: the same lowering, IR emitted with IRBuilder; JIT-compiled in process first,
  // else a shared object through LLVM's TargetMachine and the system linker.
  backend::ExecutionBackendSpec llvm_jit{
      .name = "llvm_jit",
      .is_available = [] { return exec::is_execution_backend_available("llvm_jit"); },
      .supports_target = is_llvm_target,
      .enable_host_codegen = true,
      .enable_device_compile = false,
  };
  module.target_kinds.push_back("llvm");
  module.pipelines.emplace("llvm", make_cpu_pipeline());
  module.device_codegens.emplace("llvm", make_llvm_device_codegen());
  module.execution_backends.insert(module.execution_backends.begin(), llvm_jit);
  module.host_codegens.emplace("llvm", make_llvm_host_codegen());
#else
  module.target_kinds.push_back("llvm");
  module.pipelines.emplace("llvm", make_cpu_pipeline());
  module.device_codegens.emplace("llvm", backend::DeviceCodegen{"llvm", {}, &llvm_not_built});
#endif
  return module;
}

}  // namespace

backend::BackendModule make_cpu_backend_module() {
  // Copies of one manifest, so they hold the same callables and registering the cpu
  // backend again is a no-op (target/callable_identity.h).
  static const backend::BackendModule module = build_cpu_backend_module();
  return module;
}

void register_cpu_backend() {
  register_cpu_target_kinds();
  backend::register_module_target_detector(kCpuDetectorName, detect_cpu,
                                           target::kHostDetectorPriority);
  register_cpu_pass_config_keys();
  for (auto& impl : cpu_tile_op_impls()) backend::register_module_tile_op_impl(std::move(impl));
  backend::register_backend(make_cpu_backend_module());
#ifdef TILEC_HAVE_LLVM
  // From now on `auto` on this CPU and the default host target are `llvm`.
  target::enable_llvm_host_cpu(&llvm_host_cpu_name);
#else
  target::register_target_normalizer(kLlvmUnavailableNormalizerName, reject_llvm_targets,
                                     /*override=*/true);
#endif
}

}  // namespace tilec::cpu
