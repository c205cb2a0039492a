// The `hip` target kind (AMD GPUs through ROCm/HIP): `mcpu` (the gfx architecture) and
// the GPU limits every SIMT kind declares (tilec/target/kind_schema.h). Registered by
// register_rocm_backend().
#pragma once

namespace tilec::rocm {

void register_hip_target_kind();  // idempotent; journaled

}  // namespace tilec::rocm
