// The webgpu module: the built-in module ("tilec.webgpu") that owns the `webgpu` target
// kind. The engine runs register_webgpu_backend() as a built-in module (its name is in
// TILEC_BACKEND_MODULES, the root CMakeLists.txt); a plugin's init may run it too.
#pragma once

namespace tilec::webgpu {

// Registers the kind's `device` attribute and device-limits normalizer, the SIMT tile-op
// implementations, the `wgpu` execution backend and the webgpu backend manifest
// (backend.h) (idempotent); undone when run by the module loader and a later
// registration of the same init fails.
void register_webgpu_backend();

}  // namespace tilec::webgpu
