// The `opencl` target kind (OpenCL devices): `device` (which device to prefer) and the GPU
// limits every SIMT kind declares (tilec/target/kind_schema.h), __local memory being the
// selected device's (device_limits.h). Registered by register_opencl_backend().
#pragma once

namespace tilec::opencl {

void register_opencl_target_kind();  // idempotent; journaled

}  // namespace tilec::opencl
