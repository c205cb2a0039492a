// The contract between a C host entry and the C device functions it launches: the
// host packs the LaunchNode's arguments into an array of TilecKernelArg and calls
// env->parallel_for(num_blocks, <callee>_task, args); the device codegen defines
// that task function, which unpacks the array and runs blocks [begin, end).
#pragma once

#include <string>

namespace tilec::codegen {

// C declaration of TilecKernelArg, guarded so host and device code can share a TU.
const std::string& kernel_arg_c_declaration();
// Name of the task function of device function `callee`.
std::string task_entry_name(const std::string& callee);

// Metadata key of a host artifact whose entries call task functions: their names,
// comma-separated. compile() checks that the device artifact defines each one (lists it in
// entry_points, as cpu::CodeGenCDevice does), so a device codegen that lacks one is an
// error at codegen time naming the symbol, not an undefined symbol when the kernel loads.
inline constexpr const char* kTaskCallsMetadata = "task_calls";

}  // namespace tilec::codegen
