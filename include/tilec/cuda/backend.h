// The cuda target backend: target kind `cuda` for plain CUDA targets (supports_target
// declines those carrying the key `cute`, which the CuTe variant takes), the shared SIMT
// pipeline (gpu/simt_pipeline.h) and tile-op implementations, CodeGenCUDA for the device
// and the standard host codegen launching through the runtime's device API. Execution
// backends in `auto` order: nvrtc, nvcc (exec/cuda_backends.h), then source
// (exec/source_backend.h: code only, for machines without the CUDA toolkit).
#pragma once

#include "tilec/backend/module.h"

namespace tilec::cuda {

// The pass pipeline every CUDA flavour lowers with (the CuTe variant reuses it).
const transform::PassPipeline& cuda_pipeline();
// nvrtc, nvcc and source, in that order; nvrtc and nvcc count as available when that
// execution backend is and `also_needs` (when given: e.g. a header library) holds.
std::vector<backend::ExecutionBackendSpec> cuda_execution_backend_specs(
    bool (*also_needs)() = nullptr);
bool is_plain_cuda_target(const target::Target& target);  // no key `cute`

// The cuda backend's manifest; every call returns a copy of one manifest (the same
// callables), so registering it again is a no-op.
backend::BackendModule make_cuda_backend_module();

}  // namespace tilec::cuda
