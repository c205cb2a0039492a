// The webgpu target backend: target kind `webgpu` (plus the `device` attribute this module
// adds to the kind: a WebGPU adapter by index or name fragment, see wgpu_backend.h), the
// shared SIMT pipeline (gpu/simt_pipeline.h) and tile-op implementations, CodeGenWGSL for the
// device (codegen_wgsl.h) and the standard host codegen, launching through the runtime's
// device API on this module's own `wgpu` execution backend (wgpu-native). Never chosen by
// target="auto".
#pragma once

#include "tilec/backend/module.h"

namespace tilec::webgpu {

// The webgpu backend's manifest; every call returns a copy of one manifest (the same
// callables), so registering it again is a no-op.
backend::BackendModule make_webgpu_backend_module();

}  // namespace tilec::webgpu
