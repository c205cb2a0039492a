// The backend module system of seed page 1 (tilelang.backend.module):
// BackendModule, the manifest that registers one target backend; BackendContext,
// the immutable resolved state of one compilation; and the backend registry.
// Differences from the seed, forced by C++: a manifest is an aggregate (built
// with designated initializers), so the seed's __post_init__ validation is
// validate(), which register_backend and BackendContext run; Mappings are
// std::maps keyed by target kind; modules are shared as BackendModulePtr so a
// context keeps its manifest alive; Target is tilec::target::Target.
// Registration is immutable and honest: the registry keeps its own const copy of
// every manifest, so nothing a caller later does to its own object reaches the
// registry or a context, and two declarations are equal only when their callables
// are too (same_declaration).
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/backend/backend_error.h"
#include "tilec/backend/device_codegen.h"
#include "tilec/backend/execution_backend.h"
#include "tilec/backend/global_function.h"
#include "tilec/backend/host_codegen.h"
#include "tilec/ir/function.h"
#include "tilec/target/target.h"
#include "tilec/transform/pass_pipeline.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::backend {

// A manifest callback; register_backend publishes each as the global function
// "<backend name>.<callback name>".
using BackendCallback = GlobalFunc;

// Complete registration manifest for one backend.
struct BackendModule {
  std::string name{};
  std::vector<std::string> target_kinds{};
  std::map<std::string, transform::PassPipeline> pipelines{};  // target kind -> pipeline
  std::map<std::string, DeviceCodegen> device_codegens{};      // target kind -> codegen
  std::vector<ExecutionBackendSpec> execution_backends{};      // in `auto` preference order
  std::optional<TargetPredicate> supports_target{};
  std::map<std::string, HostCodegen> host_codegens{};  // host target kind -> codegen
  std::map<std::string, std::vector<HostCodegenHook>> host_codegen_hooks{};  // target kind -> hooks
  std::map<std::string, BackendCallback> callbacks{};

  // The seed's __post_init__: throws BackendError on the first broken rule
  // (name, target kinds, pipelines, device codegens, hooks, execution
  // backends, host codegen requirement, callbacks), naming the backend.
  void validate() const;

  // A stable text summary of the declaration (names, kinds, components; not the
  // functions), for messages and tools.
  std::string description() const;

  // The same declaration: equal descriptions and, component by component, the same
  // callables (every pass, codegen, predicate, availability check, hook and
  // callback). Callables are compared by identity as target/callable_identity.h
  // defines it: the same function pointer, or an object of the same type (lambda
  // expression or functor class; captures are not compared).
  bool same_declaration(const BackendModule& other) const;
  // The first difference from `other` ("registered has ..., new has ..." or "the
  // callable of <component> differs"); empty when same_declaration.
  std::string difference_from(const BackendModule& other) const;

  bool matches(const target::Target& target) const;
  const transform::PassPipeline& get_pipeline(const target::Target& target) const;
  ir::IRModule lower(const ir::IRModule& mod, const target::Target& target) const;
  const DeviceCodegen& get_device_codegen(const target::Target& target) const;
  CodeArtifact codegen_device(const ir::IRModule& mod, const target::Target& target,
                              bool compile_device) const;
  // The manifest's own codegen for the host kind when it matches, else the
  // host codegen registry's resolution (lazy imports included).
  HostCodegen get_host_codegen(const target::Target& target_host) const;
  CodeArtifact codegen_host(const ir::IRModule& mod, const target::Target& target_host) const;
  // Applies the hooks registered for target's kind (register_backend publishes
  // this manifest's hooks there), so lazily imported hooks run too.
  ir::IRModule preprocess_host_codegen(const ir::IRModule& mod, const target::Target& target_host,
                                       const target::Target& target) const;
  std::vector<std::string> allowed_execution_backends(const target::Target& target,
                                                      bool include_unavailable = true) const;
  // "auto": the first available spec matching target, in declared order. A
  // name: that spec if it matches and is available. Errors list what was allowed
  // or available and suggest "auto".
  ExecutionBackendSpec resolve_execution_backend(std::string_view requested,
                                                 const target::Target& target) const;
};

using BackendModulePtr = std::shared_ptr<const BackendModule>;

// Resolved backend state shared by every stage of one compilation. It cannot be
// changed once made: no assignment (copying makes a new, equal context).
class BackendContext {
 public:
  // Validates: the module is valid and owns target; the execution backend is one
  // of the module's and accepts target; a host codegen resolves for target_host
  // when the execution backend needs host code. target is stored without a host.
  // A registered module is shared; any other is copied, so the caller's later
  // changes to its object never reach the context.
  BackendContext(BackendModulePtr module, target::Target target, target::Target target_host,
                 ExecutionBackendSpec execution_backend);
  BackendContext(const BackendContext&) = default;
  BackendContext& operator=(const BackendContext&) = delete;
  BackendContext& operator=(BackendContext&&) = delete;

  const BackendModule& module() const { return *module_; }
  const BackendModulePtr& module_ptr() const { return module_; }
  const target::Target& target() const { return target_; }
  const target::Target& target_host() const { return target_host_; }
  const ExecutionBackendSpec& execution_backend() const { return execution_backend_; }

  const std::string& name() const { return module_->name; }
  ir::IRModule lower(const ir::IRModule& mod) const;
  // compile_device defaults to the execution backend's enable_device_compile.
  CodeArtifact codegen_device(const ir::IRModule& mod,
                              std::optional<bool> compile_device = std::nullopt) const;
  ir::IRModule preprocess_host_codegen(const ir::IRModule& mod) const;
  CodeArtifact codegen_host(const ir::IRModule& mod) const;

 private:
  struct Registered {};  // create_backend_context: a registered, validated module
  BackendContext(Registered, BackendModulePtr module, target::Target target,
                 target::Target target_host, ExecutionBackendSpec execution_backend);
  friend BackendContext create_backend_context(const target::Target& target,
                                               std::optional<target::Target> target_host,
                                               std::string_view execution_backend);
  void check() const;

  BackendModulePtr module_;
  target::Target target_;
  target::Target target_host_;
  ExecutionBackendSpec execution_backend_;
};

// Validates and registers every component of the manifest (callbacks as global
// functions, host codegens, hooks), all or nothing, keeping its own const copy of
// the manifest and returning it. Re-registering the returned module or a
// same_declaration returns the registered module; a different declaration under a
// taken name (different callables included), or a shared target kind where some
// backend lacks supports_target, throws. A host codegen another backend already
// registered under the same name with the same callable (the standard `c` one from
// codegen::make_c_host_codegen()) is shared, in any registration order.
BackendModulePtr register_backend(BackendModule backend);
BackendModulePtr register_backend(const BackendModulePtr& backend);
// Whether `module` is the registry's own copy of a registered manifest.
bool is_registered_backend(const BackendModulePtr& module);
// Throws BackendError listing the registered names (and the nearest).
BackendModulePtr get_backend(std::string_view name);
std::vector<BackendModulePtr> list_backends();  // a copy, in registration order

// target "auto" -> target::determine_target; target_host: none -> the target's
// own host, else `llvm` when LLVM is enabled, else `c`; exactly one registered
// backend must match the target (errors name every candidate).
BackendContext create_backend_context(std::string_view target = "auto",
                                      std::optional<std::string> target_host = std::nullopt,
                                      std::string_view execution_backend = "auto");
BackendContext create_backend_context(const target::Target& target,
                                      std::optional<target::Target> target_host = std::nullopt,
                                      std::string_view execution_backend = "auto");

// The registered backends whose matches(target) is true (no error), for tools.
std::vector<BackendModulePtr> matching_backends(const target::Target& target);

}  // namespace tilec::backend
