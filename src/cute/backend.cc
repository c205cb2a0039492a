#include "tilec/cute/backend.h"
#include "tilec/cuda/target_kind.h"
#include "tilec/cute/module.h"

#include "tilec/backend/module_registrations.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cuda/backend.h"
#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cute/codegen_cute.h"
#include "tilec/cute/cute_copy.h"
#include "tilec/cute/cute_gemm.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/source_backend.h"
#include "tilec/gpu/simt_tile_ops.h"

namespace tilec::cute {

namespace {

bool cutlass_found() {
  return cutlass_include_dir().has_value();
}

}  // namespace

bool is_cute_target(const target::Target& target) {
  return target.has_key("cute");
}

backend::BackendModule make_cute_backend_module() {
  // Copies of one manifest, so they hold the same callables and registering the cute
  // module again is a no-op (target/callable_identity.h).
  static const backend::BackendModule module{
      .name = "cute",
      .target_kinds = {"cuda"},
      .pipelines = {{"cuda", cuda::cuda_pipeline()}},
      .device_codegens = {{"cuda", make_cute_device_codegen()}},
      .execution_backends = cuda::cuda_execution_backend_specs(cutlass_found),
      .supports_target = is_cute_target,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {},
  };
  return module;
}

void register_cute_backend() {
  // The cuda kind, which this module lowers too, whether or not tilec.cuda loaded first.
  cuda::register_cuda_target_kind();
  for (auto& impl : gpu::simt_tile_op_impls())
    backend::register_module_tile_op_impl(std::move(impl));
  for (auto& impl : cute_tile_op_impls()) backend::register_module_tile_op_impl(std::move(impl));
  backend::register_module_tile_op_impl(cute_copy_impl());
  register_cute_copy_calls();
  register_cute_gemm_layouts();
  backend::register_backend(make_cute_backend_module());
}

}  // namespace tilec::cute
