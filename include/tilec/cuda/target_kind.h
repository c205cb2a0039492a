// The `cuda` target kind (NVIDIA GPUs): `arch` (compute capability), the GPU limits every
// SIMT kind declares (tilec/target/kind_schema.h) and registers_per_block. Registered by
// register_cuda_backend() and by the cute module, which lowers the same kind.
#pragma once

namespace tilec::cuda {

void register_cuda_target_kind();  // idempotent; journaled

}  // namespace tilec::cuda
