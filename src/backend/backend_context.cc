#include "tilec/backend/module.h"

#include "tilec/target/nearest_name.h"

#include <algorithm>

namespace tilec::backend {

namespace {

// A registered module is immutable and was validated when registered; any other is
// validated and copied, so its owner's later changes cannot reach the context.
BackendModulePtr own_module(BackendModulePtr module) {
  if (!module) throw BackendError("BackendContext: the backend module is null");
  if (is_registered_backend(module)) return module;
  module->validate();
  return std::make_shared<const BackendModule>(*module);
}

}  // namespace

BackendContext::BackendContext(BackendModulePtr module, target::Target target,
                               target::Target target_host, ExecutionBackendSpec execution_backend)
    : module_(own_module(std::move(module))),
      target_(target.without_host()),
      target_host_(target_host.without_host()),
      execution_backend_(std::move(execution_backend)) {
  check();
}

BackendContext::BackendContext(Registered, BackendModulePtr module, target::Target target,
                               target::Target target_host, ExecutionBackendSpec execution_backend)
    : module_(std::move(module)),
      target_(target.without_host()),
      target_host_(target_host.without_host()),
      execution_backend_(std::move(execution_backend)) {
  check();
}

void BackendContext::check() const {
  const auto& kinds = module_->target_kinds;
  if (std::find(kinds.begin(), kinds.end(), target_.kind()) == kinds.end()) {
    throw BackendError("BackendContext: backend '" + module_->name + "' does not own target '" +
                       target_.str() + "' (it owns: " + target::join_names(kinds) + ")");
  }
  if (!module_->matches(target_)) {
    throw BackendError("BackendContext: backend '" + module_->name + "' rejects target '" +
                       target_.str() + "' through its supports_target predicate");
  }
  std::vector<std::string> declared;
  for (const auto& spec : module_->execution_backends) declared.push_back(spec.name);
  if (std::find(declared.begin(), declared.end(), execution_backend_.name) == declared.end()) {
    throw BackendError("BackendContext: execution backend '" + execution_backend_.name +
                       "' is not declared by backend '" + module_->name +
                       "' (declared: " + target::join_names(declared) + ")");
  }
  if (!execution_backend_.matches(target_)) {
    throw BackendError("BackendContext: execution backend '" + execution_backend_.name +
                       "' does not support target '" + target_.str() + "'");
  }
  if (execution_backend_.enable_host_codegen) {
    try {
      module_->get_host_codegen(target_host_);
    } catch (const std::exception& error) {
      throw BackendError("BackendContext: execution backend '" + execution_backend_.name +
                         "' needs host code, but " + error.what());
    }
  }
}

ir::IRModule BackendContext::lower(const ir::IRModule& mod) const {
  return module_->lower(mod, target_);
}

CodeArtifact BackendContext::codegen_device(const ir::IRModule& mod,
                                            std::optional<bool> compile_device) const {
  return module_->codegen_device(mod, target_,
                                 compile_device.value_or(execution_backend_.enable_device_compile));
}

ir::IRModule BackendContext::preprocess_host_codegen(const ir::IRModule& mod) const {
  return module_->preprocess_host_codegen(mod, target_host_, target_);
}

CodeArtifact BackendContext::codegen_host(const ir::IRModule& mod) const {
  return module_->codegen_host(mod, target_host_);
}

}  // namespace tilec::backend
