// The opencl module: the built-in module ("tilec.opencl") that owns the `opencl` target kind.
// The engine runs register_opencl_backend() as a built-in module (its name is in
// TILEC_BACKEND_MODULES, the root CMakeLists.txt); a plugin's init may run it too.
#pragma once

namespace tilec::opencl {

// Registers the manifest, the device-limits normalizer, the SIMT tile-op implementations and the
// `opencl` execution backend (idempotent); undone when run by the module loader and a later
// registration of the same init fails.
void register_opencl_backend();

}  // namespace tilec::opencl
