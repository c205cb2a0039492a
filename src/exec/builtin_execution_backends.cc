#include "builtin_execution_backends.h"

#include "tilec/exec/native_backend.h"

namespace tilec::exec::detail {

std::vector<ExecutionBackendPtr> builtin_execution_backends() {
  return {native_execution_backend()};
}

}  // namespace tilec::exec::detail
