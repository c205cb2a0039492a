// The rocm module: the built-in module ("tilec.rocm") that owns the `hip` target kind:
// the HIP detector (detector.h), the wavefront normalizer (hip_target.h), the SIMT
// tile-op implementations plus the MFMA gemm (mfma_gemm.h), the hiprtc and hipcc
// execution backends (hip_backends.h), the emulator's HIP dialect (emulator_dialect.h),
// the global function tilelang_callback_hip_compile and the rocm manifest (backend.h).
#pragma once

namespace tilec::rocm {

// Registers the module's contributions (idempotent); undone when run by the module loader
// and a later registration of the same init fails.
void register_rocm_backend();

}  // namespace tilec::rocm
