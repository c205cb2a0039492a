#include "tilec/cuda/module.h"
#include "tilec/cuda/target_kind.h"

#include "tilec/backend/module_registrations.h"
#include "tilec/cuda/backend.h"
#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/detector.h"
#include "tilec/cuda/emulator_dialect.h"
#include "tilec/cuda/mma_gemm.h"
#include "tilec/gpu/simt_tile_ops.h"

namespace tilec::cuda {

void register_cuda_backend() {
  register_cuda_target_kind();
  backend::register_module_target_detector(kCudaDetectorName, detect_cuda,
                                           target::kAcceleratorDetectorPriority);
  for (auto& impl : gpu::simt_tile_op_impls())
    backend::register_module_tile_op_impl(std::move(impl));
  backend::register_module_tile_op_impl(mma_gemm_impl());
  exec::register_execution_backend(nvrtc_execution_backend());
  exec::register_execution_backend(nvcc_execution_backend());
  exec::register_emulator_dialect(cuda_emulator_dialect());
  backend::register_backend(make_cuda_backend_module());
}

}  // namespace tilec::cuda
