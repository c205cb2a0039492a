// The opencl target backend: target kind `opencl` (device chosen by -device=NAME or
// -device=PLATFORM:DEVICE, see exec/opencl_backend.h), the shared SIMT pipeline
// (gpu/simt_pipeline.h) and tile-op implementations, CodeGenOpenCL for the device and
// the standard host codegen of the target's host, launching through the runtime's
// device API on the shared `opencl` execution backend. Never chosen by target="auto".
#pragma once

#include "tilec/backend/module.h"

namespace tilec::opencl {

// The opencl backend's manifest; every call returns a copy of one manifest (the same
// callables), so registering it again is a no-op.
backend::BackendModule make_opencl_backend_module();

}  // namespace tilec::opencl
