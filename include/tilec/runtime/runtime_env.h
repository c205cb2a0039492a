// The TilecRuntimeEnv handed to every host entry (abi.h): its parallel_for runs
// on the global thread pool and never lets a C++ exception reach generated C.
#pragma once

#include "tilec/runtime/abi.h"

namespace tilec::runtime {

// Process-wide, created on first use; the pointer stays valid until exit.
const TilecRuntimeEnv* default_runtime_env();

}  // namespace tilec::runtime
