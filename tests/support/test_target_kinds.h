// Stand-in target kinds for tests of the layers below the backends (target, ir, transform,
// backend, codegen, exec, gpu), registered when the test binary starts. They have the
// shapes the tests need from the real kinds without being them, so these tests neither
// link a backend nor depend on a backend's GPU schema:
//   c, llvm         the host kinds the backend layer defaults to, with the cpu module's
//                   attributes (mcpu, mattr; mtriple, mcpu, mattr); keys cpu
//   gpu_test        arch, GPU limits (1024 threads, 48 KiB shared, warp 32, warp
//                   reductions), registers_per_block; keys gpu_test, gpu (like `cuda`)
//   wave_test       mcpu, GPU limits (warp 64); keys wave_test, gpu (like `hip`)
//   plain_gpu_test  GPU limits only; keys plain_gpu_test, gpu (like `metal`)
//   cl_test         device, GPU limits (256 threads, warp 1, 32 KiB private, no subgroup
//                   reductions, shared memory 0); keys cl_test, gpu (like `opencl`)
#pragma once

namespace tilec::test {

// Idempotent; the binary's static initialisation has already called it.
void register_test_target_kinds();

}  // namespace tilec::test
