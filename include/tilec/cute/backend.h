// The CuTe variant of the cuda backend: a second BackendModule ("cute") on target kind
// `cuda`, chosen by its supports_target when the target carries the key `cute`
// (`cuda -arch=sm_90 -keys=cuda,gpu,cute`; the cuda backend declines those). It reuses
// the cuda pipeline object, declares its own device codegen (CodeGenCuTe) and its own
// execution backend specs: nvrtc and nvcc, available when the CUDA backend is and the
// CUTLASS headers are found (cutlass_headers.h), then source.
#pragma once

#include "tilec/backend/module.h"

namespace tilec::cute {

bool is_cute_target(const target::Target& target);  // the key `cute`

// The cute backend's manifest; every call returns a copy of one manifest (the same
// callables), so registering it again is a no-op.
backend::BackendModule make_cute_backend_module();

}  // namespace tilec::cute
