// The `native` execution backend: compiles the C host and device sources with
// the system C compiler ($CC, else cc) into one shared library and dlopens it. LLVM IR
// artifacts (with -DTILEC_LLVM=ON) become objects through LLVM's TargetMachine first
// (the host's for target_host, the device's for target) and are linked the same way.
// Flags come from the target (-march from its mcpu, else the build host's CPU);
// the cache identity is the compiler's `--version` first line plus the flags.
#pragma once

#include "tilec/exec/execution_backend.h"

#include <string>
#include <vector>

namespace tilec::exec {

inline constexpr const char* kNativeBackendName = "native";

ExecutionBackendPtr make_native_execution_backend();
// The process's one native backend, which the exec layer registers itself as "native"
// (builtin_execution_backends.cc) before its registry is first used.
const ExecutionBackendPtr& native_execution_backend();
// Registers native_execution_backend() (a no-op once registered, as it always is).
void register_native_execution_backend();

// The compiler command ($CC split on spaces, else {"cc"}) and the flags used for
// a target; exposed so tools and tests can show exactly what runs.
std::vector<std::string> native_compiler_command();
std::vector<std::string> native_compile_flags(const target::Target& target);

}  // namespace tilec::exec
