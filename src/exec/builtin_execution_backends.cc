#include "builtin_execution_backends.h"

#include "tilec/exec/cuda_backends.h"
#include "tilec/exec/emulator.h"
#include "tilec/exec/native_backend.h"
#include "tilec/exec/opencl_backend.h"
#include "tilec/exec/source_backend.h"

#ifdef TILEC_HAVE_LLVM
#include "llvm/llvm_jit_backend.h"
#endif

namespace tilec::exec::detail {

std::vector<ExecutionBackendPtr> builtin_execution_backends() {
#ifdef TILEC_HAVE_LLVM
  return {native_execution_backend(),  llvm_jit_execution_backend(), opencl_execution_backend(),
          nvrtc_execution_backend(),   nvcc_execution_backend(),     source_execution_backend(),
          emulator_execution_backend()};
#else
  return {native_execution_backend(), opencl_execution_backend(), nvrtc_execution_backend(),
          nvcc_execution_backend(),   source_execution_backend(), emulator_execution_backend()};
#endif
}

}  // namespace tilec::exec::detail
