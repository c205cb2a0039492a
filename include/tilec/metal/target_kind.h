// The `metal` target kind (Apple GPUs): the GPU limits every SIMT kind declares
// (tilec/target/kind_schema.h). Registered by register_metal_backend().
#pragma once

namespace tilec::metal {

void register_metal_target_kind();  // idempotent; journaled

}  // namespace tilec::metal
