// Test helper: lowers a module with the cpu pipeline, generates host and device C,
// builds it with the native execution backend and runs one function on tensors;
// compares every tensor the function writes against the reference interpreter.
#pragma once

#include "tilec/backend/device_codegen.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/function.h"

#include <map>
#include <string>

namespace tilec::cpu::testing {

struct CpuRunResult {
  bool ok = true;
  std::string report;  // per written tensor: max error and first mismatch
  std::string host_source, device_source;
};

// Throws whatever a stage throws (lowering, codegen, build, the kernel's own error).
// `device_codegen` replaces the cpu backend's c device codegen when given.
CpuRunResult run_and_compare(const ir::IRModule& mod, const std::string& function,
                             const std::map<std::string, int64_t>& values, uint64_t seed,
                             const backend::DeviceCodegen* device_codegen = nullptr);

}  // namespace tilec::cpu::testing
