// The cpu module: the built-in module ("tilec.cpu") that owns the `c` and `llvm` target kinds.
// The engine runs register_cpu_backend() as a built-in module (its name is in
// TILEC_BACKEND_MODULES, the root CMakeLists.txt); a plugin's init may run it too.
#pragma once

namespace tilec::cpu {

// Registers the manifest, the "cpu" target detector and the cpu tile-op implementations
// (tile_ops.h) (idempotent); undone when run by the module loader and a later registration of the
// same init fails.
void register_cpu_backend();

}  // namespace tilec::cpu
