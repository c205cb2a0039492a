#include "tilec/cpu/detector.h"

#include "tilec/target/llvm_support.h"

namespace tilec::cpu {

target::Detection detect_cpu() {
  using target::Target;
  if (target::llvm_enabled())
    return {Target::make("llvm", {{"mcpu", target::llvm_host_cpu()}}), ""};
  return {Target::make("c"), ""};
}

}  // namespace tilec::cpu
