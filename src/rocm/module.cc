#include "tilec/rocm/module.h"
#include "tilec/rocm/target_kind.h"

#include "tilec/backend/global_function.h"
#include "tilec/backend/module_registrations.h"
#include "tilec/exec/emulator.h"
#include "tilec/gpu/simt_tile_ops.h"
#include "tilec/rocm/backend.h"
#include "tilec/rocm/detector.h"
#include "tilec/rocm/emulator_dialect.h"
#include "tilec/rocm/hip_backends.h"
#include "tilec/rocm/hip_target.h"
#include "tilec/rocm/mfma_gemm.h"
#include "tilec/target/detect.h"

namespace tilec::rocm {

void register_rocm_backend() {
  register_hip_target_kind();
  backend::register_module_target_detector(kHipDetectorName, detect_hip,
                                           target::kAcceleratorDetectorPriority);
  target::register_target_normalizer(kWavefrontNormalizerName, normalize_hip_wavefront);
  for (auto& impl : gpu::simt_tile_op_impls())
    backend::register_module_tile_op_impl(std::move(impl));
  backend::register_module_tile_op_impl(mfma_gemm_impl());
  exec::register_execution_backend(hiprtc_execution_backend());
  exec::register_execution_backend(hipcc_execution_backend());
  exec::register_emulator_dialect(hip_emulator_dialect());
  backend::register_global_func(kHipCompileCallbackName, &hip_compile_callback);
  backend::register_backend(make_rocm_backend_module());
}

}  // namespace tilec::rocm
