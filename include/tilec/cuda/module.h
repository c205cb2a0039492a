// The cuda module: the built-in module ("tilec.cuda") that owns the `cuda` target kind.
// The engine runs register_cuda_backend() as a built-in module (its name is in
// TILEC_BACKEND_MODULES, the root CMakeLists.txt); a plugin's init may run it too.
#pragma once

namespace tilec::cuda {

// Registers the kind's target detector (detector.h), the SIMT and mma tile-op
// implementations, the nvrtc/nvcc execution backends, the CUDA emulator dialect and the
// cuda backend manifest (backend.h) (idempotent); undone when run by the module loader
// and a later registration of the same init fails.
void register_cuda_backend();

}  // namespace tilec::cuda
