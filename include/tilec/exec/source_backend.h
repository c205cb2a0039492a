// The shared `source` execution backend: build() writes the host and device sources
// (host.c, device.<format>) into the build directory and builds nothing, so `tilec
// compile` can show the code of a target this machine cannot build or run. Its artifact
// is a listing of those files; every host function of a module it loads fails when
// called with an error saying that nothing was built and which execution backend to use.
// Always available.
#pragma once

#include "tilec/exec/execution_backend.h"

namespace tilec::exec {

inline constexpr const char* kSourceBackendName = "source";

const ExecutionBackendPtr& source_execution_backend();

}  // namespace tilec::exec
