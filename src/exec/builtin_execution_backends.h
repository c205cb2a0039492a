// The execution backends that several target backends share (native, llvm_jit, source,
// emulator), registered by the exec layer itself before its registry is first used
// (internal to src/exec). An execution backend that one target backend owns (opencl,
// nvrtc/nvcc) lives in that backend's folder and is registered by its module init with
// register_execution_backend, so adding one edits no list here.
#pragma once

#include "tilec/exec/execution_backend.h"

#include <vector>

namespace tilec::exec::detail {

std::vector<ExecutionBackendPtr> builtin_execution_backends();

}  // namespace tilec::exec::detail
