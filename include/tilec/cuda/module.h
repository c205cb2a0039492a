// The cuda module: the built-in module ("tilec.cuda") that owns the `cuda` target kind:
// the kind's target detector (detector.h), the SIMT tile-op implementations and the cuda
// backend manifest (backend.h).
#pragma once

namespace tilec::cuda {

// Registers the module's contributions (idempotent); undone when run by the module loader
// and a later registration of the same init fails.
void register_cuda_module();

}  // namespace tilec::cuda
