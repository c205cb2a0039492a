#include "tilec/cuda/backend.h"

#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cuda/codegen_cuda.h"
#include "tilec/cuda/cp_async.h"
#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/shared_swizzle.h"
#include "tilec/exec/emulator.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/source_backend.h"
#include "tilec/gpu/simt_pipeline.h"

namespace tilec::cuda {

namespace {

// The host entry takes host tensors and copies them to device memory and back.
constexpr int64_t kDLCPU = 1;

}  // namespace

const transform::PassPipeline& cuda_pipeline() {
  // T.Pipelined's cp.async pipeline on sm_80+ (cp_async.h) and the tensor-core gemm's
  // swizzled shared tiles (shared_swizzle.h) around the shared SIMT passes; CodeGenCUDA
  // prints bounds checks (a violation prints its message and traps).
  static const transform::PassPipeline pipeline = gpu::make_simt_pipeline(
      "cuda", kDLCPU,
      {.before = {inject_cp_async_pipeline_pass(), plan_shared_swizzle_pass()},
       .after = {swizzle_shared_pass(), lower_cp_async_pass()},
       .bounds_check = true});
  return pipeline;
}

std::vector<backend::ExecutionBackendSpec> cuda_execution_backend_specs(bool (*also_needs)()) {
  auto compiler = [also_needs](const char* name) {
    // The execution backends compile the CUDA C++ themselves (NVRTC or nvcc).
    return backend::ExecutionBackendSpec{.name = name,
                                         .is_available =
                                             [name, also_needs] {
                                               return exec::is_execution_backend_available(name) &&
                                                      (!also_needs || also_needs());
                                             },
                                         .supports_target = std::nullopt,
                                         .enable_host_codegen = true,
                                         .enable_device_compile = false};
  };
  backend::ExecutionBackendSpec source{.name = exec::kSourceBackendName,
                                       .is_available = {},
                                       .supports_target = std::nullopt,
                                       .enable_host_codegen = true,
                                       .enable_device_compile = false};
  // The emulator runs the same source on the CPU; `auto` never reaches it (source is
  // always available), so it runs only when asked for by name.
  backend::ExecutionBackendSpec emulator{
      .name = exec::kEmulatorBackendName,
      .is_available =
          [] { return exec::is_execution_backend_available(exec::kEmulatorBackendName); },
      .supports_target = std::nullopt,
      .enable_host_codegen = true,
      .enable_device_compile = false};
  return {compiler(cuda::kNvrtcBackendName), compiler(cuda::kNvccBackendName), source, emulator};
}

bool is_plain_cuda_target(const target::Target& target) {
  return !target.has_key("cute");
}

backend::BackendModule make_cuda_backend_module() {
  // Copies of one manifest, so they hold the same callables and registering the cuda
  // module again is a no-op (target/callable_identity.h).
  static const backend::BackendModule module{
      .name = "cuda",
      .target_kinds = {"cuda"},
      .pipelines = {{"cuda", cuda_pipeline()}},
      .device_codegens = {{"cuda", make_cuda_device_codegen()}},
      .execution_backends = cuda_execution_backend_specs(),
      .supports_target = is_plain_cuda_target,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {},
  };
  return module;
}

}  // namespace tilec::cuda
