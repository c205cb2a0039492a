// The metal module: the built-in module ("tilec.metal") that owns the `metal` target kind.
// The engine runs register_metal_backend() as a built-in module (its name is in
// TILEC_BACKEND_MODULES, the root CMakeLists.txt); a plugin's init may run it too.
#pragma once

namespace tilec::metal {

// Registers the simdgroup and SIMT tile-op implementations, the MSL emulator dialect and
// the metal backend manifest (backend.h) (idempotent); undone when run by the module
// loader and a later registration of the same init fails.
void register_metal_backend();

}  // namespace tilec::metal
