#include "tilec/cpu/llvm_codegen.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/TargetParser/Host.h>

namespace tilec::cpu {

std::string llvm_host_cpu_name() {
  return llvm::sys::getHostCPUName().str();
}

}  // namespace tilec::cpu
