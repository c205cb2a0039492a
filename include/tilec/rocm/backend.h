// The rocm target backend: target kind `hip` (AMD GPUs; TileLang's `rocm` backend), the
// shared SIMT pipeline with the wavefront as the warp size (gpu/simt_pipeline.h; the
// arch's wavefront comes from hip_target.h's normalizer), the MFMA gemm on gfx908/90a/94x
// (mfma_gemm.h), CodeGenHIP for the device and the standard C host codegen launching
// through the runtime's device API. Execution backends in `auto` order: hiprtc, hipcc
// (hip_backends.h), then source; the emulator runs the same source on the CPU when asked
// for by name.
#pragma once

#include "tilec/backend/module.h"

namespace tilec::rocm {

const transform::PassPipeline& rocm_pipeline();
backend::BackendModule make_rocm_backend_module();

// TileLang's `tilelang_callback_hip_compile` (a global function of that name): (code:
// str, target: Target) -> bytes, the HIP C++ compiled by hiprtc into a code object for
// the target's -mcpu.
inline constexpr const char* kHipCompileCallbackName = "tilelang_callback_hip_compile";
backend::Value hip_compile_callback(const backend::ValueList& args);

}  // namespace tilec::rocm
