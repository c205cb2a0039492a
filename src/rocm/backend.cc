#include "tilec/rocm/backend.h"

#include "tilec/backend/global_function.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/exec/emulator.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/source_backend.h"
#include "tilec/gpu/simt_pipeline.h"
#include "tilec/rocm/codegen_hip.h"
#include "tilec/rocm/hip_backends.h"
#include "tilec/rocm/hip_compile.h"
#include "tilec/rocm/hip_target.h"

#include <fmt/format.h>

namespace tilec::rocm {

namespace {

// The host entry takes host tensors and copies them to device memory and back.
constexpr int64_t kDLCPU = 1;

backend::ExecutionBackendSpec spec(const char* name) {
  return backend::ExecutionBackendSpec{
      .name = name,
      .is_available = [name] { return exec::is_execution_backend_available(name); },
      .supports_target = std::nullopt,
      .enable_host_codegen = true,
      .enable_device_compile = false};
}

}  // namespace

const transform::PassPipeline& rocm_pipeline() {
  // The shared SIMT passes read the warp size from thread_warp_size (the wavefront);
  // CodeGenHIP prints bounds checks.
  static const transform::PassPipeline pipeline =
      gpu::make_simt_pipeline("rocm", kDLCPU, {.before = {}, .after = {}, .bounds_check = true});
  return pipeline;
}

backend::BackendModule make_rocm_backend_module() {
  // The source backend is always available, so `auto` never reaches the emulator: it
  // runs only when asked for by name.
  static const backend::BackendModule module{
      .name = "rocm",
      .target_kinds = {"hip"},
      .pipelines = {{"hip", rocm_pipeline()}},
      .device_codegens = {{"hip", make_hip_device_codegen()}},
      .execution_backends = {spec(kHiprtcBackendName), spec(kHipccBackendName),
                             spec(exec::kSourceBackendName), spec(exec::kEmulatorBackendName)},
      .supports_target = std::nullopt,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {},
  };
  return module;
}

backend::Value hip_compile_callback(const backend::ValueList& args) {
  if (args.size() != 2 || !args[0].is<std::string>() || !args[1].is<target::Target>()) {
    throw exec::ExecError(
        fmt::format("{}: expects (code: str, target: Target), got {} argument(s); e.g. (source, "
                    "Target(\"hip -mcpu=gfx90a\"))",
                    kHipCompileCallbackName, args.size()));
  }
  const std::string& code = args[0].as<std::string>();
  std::string object =
      hiprtc_compile(code, "tilelang_hip_kernel.hip", hip_arch(args[1].as<target::Target>()));
  return backend::Value(backend::Bytes(object.begin(), object.end()));
}

}  // namespace tilec::rocm
