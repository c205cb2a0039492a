#include "tilec/cpu/llvm_codegen.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/TargetParser/Host.h>

namespace tilec::cpu {

std::string llvm_host_cpu_name() {
  // Asked on every target="auto"; the host CPU does not change while the process runs,
  // and LLVM's query is far slower than the rest of context creation.
  static const std::string name = llvm::sys::getHostCPUName().str();
  return name;
}

}  // namespace tilec::cpu
