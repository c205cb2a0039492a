#include "tilec/backend/device_codegen.h"

#include "tilec/backend/backend_error.h"
#include "tilec/backend/global_function.h"

namespace tilec::backend {

CodeArtifact DeviceCodegen::codegen(const ir::IRModule& mod, const target::Target& target,
                                    bool compile_device) const {
  if (compile_device) {
    if (!build) {
      throw BackendError("device codegen '" + name + "' cannot compile device code for '" +
                         target.str() + "' (it has no build function)" +
                         (build_without_compile ? "; it can emit source only: use compile_device "
                                                  "= false or an execution backend that compiles "
                                                  "device code itself"
                                                : ""));
    }
    return build(mod, target);
  }
  if (!build_without_compile) {
    throw BackendError("device codegen '" + name +
                       "' cannot emit device source without "
                       "compiling for '" +
                       target.str() + "' (it has no build_without_compile)" +
                       (build ? "; use compile_device = true or an execution backend with "
                                "enable_device_compile"
                              : ""));
  }
  return build_without_compile(mod, target);
}

DeviceCodegenFunc global_func_device_codegen(std::string global_func_name) {
  return
      [name = std::move(global_func_name)](const ir::IRModule& mod, const target::Target& target) {
        Value result = get_global_func(name)(ValueList{Value(mod), Value(target)});
        if (!result.is<CodeArtifact>()) {
          throw BackendError("global function '" + name + "' used as a device codegen returned " +
                             result.type_name() + ", expected a CodeArtifact");
        }
        return result.as<CodeArtifact>();
      };
}

}  // namespace tilec::backend
