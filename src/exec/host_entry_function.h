// The HostFunction of a loaded kernel library's host entry, shared by the execution
// backends that load one (native, opencl, nvrtc/nvcc): the entry is looked up by its
// global symbol (an unknown one is an ExecError naming the library), and the returned
// closure holds `keep_alive` so the library (and any device module the env points
// into) stays loaded while the function is callable. `env` null: the default runtime.
#pragma once

#include "tilec/exec/execution_backend.h"
#include "tilec/runtime/kernel_library.h"

#include <memory>
#include <string_view>

namespace tilec::exec::detail {

HostFunction host_entry_function(const runtime::KernelLibrary& library,
                                 std::string_view global_symbol,
                                 std::shared_ptr<const void> keep_alive,
                                 const TilecRuntimeEnv* env = nullptr);

}  // namespace tilec::exec::detail
