#include "builtin_execution_backends.h"

#include "tilec/exec/emulator.h"
#include "tilec/exec/native_backend.h"
#include "tilec/exec/source_backend.h"

#ifdef TILEC_HAVE_LLVM
#include "llvm/llvm_jit_backend.h"
#endif

namespace tilec::exec::detail {

std::vector<ExecutionBackendPtr> builtin_execution_backends() {
  std::vector<ExecutionBackendPtr> backends = {
      native_execution_backend(), source_execution_backend(), emulator_execution_backend()};
#ifdef TILEC_HAVE_LLVM
  backends.push_back(llvm_jit_execution_backend());
#endif
  return backends;
}

}  // namespace tilec::exec::detail
