// The metal target backend: target kind `metal` (Apple GPUs), the shared SIMT pipeline
// (gpu/simt_pipeline.h), the SIMT tile-op implementations plus the simdgroup-matrix gemm
// (simdgroup_gemm.h), CodeGenMetal (MSL) for the device, the standard `c` host codegen
// launching through the runtime's device API, and TileLang's one host codegen hook among its
// backends, `metal_context` (metal_context.h). Execution backends in `auto` order: source
// (exec/source_backend.h: the MSL and host C only; no Metal runtime is built here, see
// README) and emulator (the MSL run on the CPU through tilec/emu/metal.h; never chosen by
// `auto`). Never chosen by target="auto" (no detector: nothing on Linux runs Metal).
#pragma once

#include "tilec/backend/module.h"

namespace tilec::metal {

const transform::PassPipeline& metal_pipeline();

// The metal backend's manifest; every call returns a copy of one manifest (the same
// callables), so registering it again is a no-op.
backend::BackendModule make_metal_backend_module();

}  // namespace tilec::metal
