// The `cpu` target backend: the only place it is assembled (src/cpu/backend.cc).
// Target kind `c`; pipeline "cpu"; C device codegen; the standard `c` host codegen;
// execution backends in auto order: native.
#pragma once

#include "tilec/backend/module.h"

namespace tilec::cpu {

backend::BackendModule make_cpu_backend_module();
// Registers the module (idempotent): the manifest, the "cpu" target detector and the
// cpu tile-op implementations (tile_ops.h); the engine runs it as built-in "tilec.cpu".
void register_cpu_backend();

}  // namespace tilec::cpu
