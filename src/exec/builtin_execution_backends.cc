#include "builtin_execution_backends.h"

#include "tilec/exec/native_backend.h"
#include "tilec/exec/opencl_backend.h"

namespace tilec::exec::detail {

std::vector<ExecutionBackendPtr> builtin_execution_backends() {
  return {native_execution_backend(), opencl_execution_backend()};
}

}  // namespace tilec::exec::detail
