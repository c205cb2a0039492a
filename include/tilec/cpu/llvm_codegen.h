// The cpu backend's `llvm` target kind (defined only with -DTILEC_LLVM=ON): device and host
// codegens that emit LLVM IR with IRBuilder from the lowered IR (CodeArtifact format
// "llvm", textual IR in `source`), which the llvm_jit and native execution backends turn
// into machine code. No LLVM header is included here.
//  - Device: per device function an internal function with `noalias` buffer parameters
//    and the task entry `<name>_task(begin, end, closure)` of codegen/c_launch_abi.h.
//  - Host ("llvm", a standard host codegen like "c": the same function pointer in every
//    manifest that declares it): the host entry of runtime/abi.h with the C host entry's
//    argument checks and messages (runtime/host_arg_checks.h), tilec_abi_version(), and
//    the launch as env->parallel_for over blocks.
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/backend/device_codegen.h"
#include "tilec/backend/host_codegen.h"
#include "tilec/ir/function.h"
#include "tilec/target/target.h"

#include <string>

namespace tilec::cpu {

inline constexpr const char* kLlvmArtifactFormat = "llvm";

backend::CodeArtifact generate_llvm_device(const ir::IRModule& mod, const target::Target& target);
backend::CodeArtifact generate_llvm_host(const ir::IRModule& mod,
                                         const target::Target& target_host);
backend::DeviceCodegen make_llvm_device_codegen();  // name "llvm"
backend::HostCodegen make_llvm_host_codegen();      // name "llvm"
// LLVM's name for this machine's CPU (llvm::sys::getHostCPUName: "znver4", "generic", ...).
std::string llvm_host_cpu_name();

}  // namespace tilec::cpu
