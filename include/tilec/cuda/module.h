// The cuda module: the built-in module ("tilec.cuda") that owns the `cuda` target kind.
// For now it contributes the kind's target detector; the cuda backend manifest (pipeline,
// device codegen, execution backend) is registered here when it lands.
#pragma once

namespace tilec::cuda {

// Registers the module's contributions (idempotent); undone when run by the module loader
// and a later registration of the same init fails.
void register_cuda_module();

}  // namespace tilec::cuda
