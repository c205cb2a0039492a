// The `llvm_jit` execution backend (internal to src/exec; built with -DTILEC_LLVM=ON):
// LLVM IR host and device artifacts are linked, optimized and compiled in process by
// LLVM's TargetMachine (llvm_object.h) into one relocatable object, `kernel.o`, which the
// kernel cache keeps; load() puts such an object into ORC's LLJIT (one per process, a
// JITDylib per kernel, removed when the last reference goes). No external compiler runs.
// The cache identity is the LLVM version, triple, CPU and features.
#pragma once

#include "tilec/exec/execution_backend.h"

namespace tilec::exec {

inline constexpr const char* kLlvmJitBackendName = "llvm_jit";

// The process's one llvm_jit backend, which the exec layer registers itself.
const ExecutionBackendPtr& llvm_jit_execution_backend();

}  // namespace tilec::exec
