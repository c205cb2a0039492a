// The `cpu` target backend: the only place it is assembled (src/cpu/backend.cc).
// Target kinds `c` and (built with -DTILEC_LLVM=ON) `llvm`, both on pipeline "cpu";
// device codegens: C text for `c`, LLVM IR for `llvm` (tilec/cpu/llvm_codegen.h); host
// codegens: the standard `c` and `llvm` ones. Execution backends in auto order:
// llvm_jit (llvm targets only), native. With LLVM, registering also enables
// target::llvm_host_cpu, so `auto` on this CPU and the default host are `llvm`; without
// LLVM it registers the normalizer below, which rejects `llvm` targets and hosts with why.
#pragma once

#include "tilec/backend/module.h"

namespace tilec::cpu {

inline constexpr const char* kLlvmUnavailableNormalizerName = "cpu_llvm_unavailable";

// The cpu backend's manifest; every call returns a copy of one manifest (the same
// callables), so registering it again is a no-op.
backend::BackendModule make_cpu_backend_module();

}  // namespace tilec::cpu
