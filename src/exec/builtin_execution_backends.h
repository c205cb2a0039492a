// The shared execution backends the exec layer registers itself, before its registry is
// first used (internal to src/exec). A new shared execution backend is implemented in this
// folder and added to the list in builtin_execution_backends.cc; one a single target
// backend implements for itself is registered by that backend's module instead.
#pragma once

#include "tilec/exec/execution_backend.h"

#include <vector>

namespace tilec::exec::detail {

std::vector<ExecutionBackendPtr> builtin_execution_backends();

}  // namespace tilec::exec::detail
