// Whether the LLVM backend is built in. It is absent until that backend lands; when it
// does, it calls enable_llvm_host_cpu with its host-CPU query, and from then on the "cpu"
// detector answers `llvm -mcpu=<host cpu>` instead of `c`.
#pragma once

#include <functional>
#include <string>

namespace tilec::target {

bool llvm_enabled();

// Throws TargetError when the LLVM backend is not enabled.
std::string llvm_host_cpu();

// `host_cpu_name` must be callable; an empty function disables LLVM again.
void enable_llvm_host_cpu(std::function<std::string()> host_cpu_name);

}  // namespace tilec::target
