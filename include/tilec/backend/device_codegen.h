// DeviceCodegen: a target backend's device code generator. `build` produces
// compiled device code (e.g. PTX/cubin or an object-ready source) and
// `build_without_compile` only the source; either may be absent, and asking for
// the missing mode is an error that names the codegen and the other mode.
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/ir/function.h"
#include "tilec/target/callable_identity.h"
#include "tilec/target/target.h"

#include <functional>
#include <string>

namespace tilec::backend {

// Shared by copies and compared by identity (target/callable_identity.h).
using DeviceCodegenFunc =
    target::SharedFunction<CodeArtifact(const ir::IRModule&, const target::Target&)>;

struct DeviceCodegen {
  std::string name{};
  DeviceCodegenFunc build{};
  DeviceCodegenFunc build_without_compile{};

  // build when compile_device, else build_without_compile; BackendError when
  // that mode is not provided.
  CodeArtifact codegen(const ir::IRModule& mod, const target::Target& target,
                       bool compile_device) const;
};

// A DeviceCodegenFunc calling the named global function with (mod, target); the
// function is looked up at call time and must return a CodeArtifact.
DeviceCodegenFunc global_func_device_codegen(std::string global_func_name);

}  // namespace tilec::backend
