// The cute module: the built-in module ("tilec.cute"): the CuTe variant of the cuda backend (kind
// `cuda`, key `cute`). The engine runs register_cute_backend() as a built-in module (its name is in
// TILEC_BACKEND_MODULES, the root CMakeLists.txt); a plugin's init may run it too.
#pragma once

namespace tilec::cute {

// Registers its manifest and its tile-op implementations (idempotent); undone when run by the
// module loader and a later registration of the same init fails.
void register_cute_backend();

}  // namespace tilec::cute
