#include "tilec/backend/module.h"

#include "tilec/target/callable_identity.h"
#include "tilec/target/kind_loader.h"
#include "tilec/target/nearest_name.h"
#include "tilec/target/target_kind.h"

#include <algorithm>
#include <set>

namespace tilec::backend {
namespace {

template <class Map>
std::vector<std::string> keys_of(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : map) keys.push_back(key);
  return keys;
}

}  // namespace

void BackendModule::validate() const {
  if (name.empty()) throw BackendError("BackendModule: the backend name is empty");
  auto fail = [this](const std::string& what) {
    throw BackendError("backend '" + name + "': " + what);
  };
  if (target_kinds.empty()) fail("declares no target kinds; list at least one in target_kinds");
  std::set<std::string> owned;
  for (const auto& kind : target_kinds) {
    if (kind.empty()) fail("has an empty target kind in target_kinds");
    if (!owned.insert(kind).second) fail("lists target kind '" + kind + "' twice");
    // Not find_target_kind: a module's init must not start loading the other modules.
    if (!target::find_registered_target_kind(kind)) {
      auto known = target::registered_target_kind_names();
      fail("target kind '" + kind + "' is not a registered target kind" +
           target::did_you_mean(kind, known) + "; known kinds: " + target::join_names(known) +
           "; register new kinds with target::register_target_kind first");
    }
  }
  auto check_per_kind = [&](const std::vector<std::string>& declared, const char* what) {
    for (const auto& kind : target_kinds) {
      if (std::find(declared.begin(), declared.end(), kind) == declared.end()) {
        fail(std::string("declares no ") + what + " for its target kind '" + kind + "' (" + what +
             "s are declared for: " + target::join_names(declared) + ")");
      }
    }
    for (const auto& kind : declared) {
      if (!owned.count(kind)) {
        fail(std::string("declares a ") + what + " for target kind '" + kind +
             "', which it does not own (target_kinds: " + target::join_names(target_kinds) + ")");
      }
    }
  };
  check_per_kind(keys_of(pipelines), "pipeline");
  check_per_kind(keys_of(device_codegens), "device codegen");
  for (const auto& [kind, codegen] : device_codegens) {
    if (codegen.name.empty()) fail("the device codegen for '" + kind + "' has an empty name");
    if (!codegen.build && !codegen.build_without_compile) {
      fail("device codegen '" + codegen.name + "' has neither build nor build_without_compile");
    }
  }
  for (const auto& [kind, hooks] : host_codegen_hooks) {
    if (!owned.count(kind)) {
      fail("declares host codegen hooks for target kind '" + kind +
           "', which it does not own (target_kinds: " + target::join_names(target_kinds) + ")");
    }
    if (hooks.empty()) fail("declares an empty host codegen hook list for '" + kind + "'");
    for (const auto& hook : hooks) {
      if (hook.name.empty()) fail("a host codegen hook for '" + kind + "' has an empty name");
      if (!hook.apply) fail("host codegen hook '" + hook.name + "' has no apply function");
    }
  }
  if (execution_backends.empty()) {
    fail("declares no execution backends; list at least one ExecutionBackendSpec");
  }
  std::set<std::string> spec_names;
  bool needs_host_codegen = false;
  for (const auto& spec : execution_backends) {
    if (spec.name.empty()) fail("has an execution backend with an empty name");
    if (!spec_names.insert(spec.name).second) {
      fail("lists execution backend '" + spec.name + "' twice");
    }
    needs_host_codegen = needs_host_codegen || spec.enable_host_codegen;
  }
  if (needs_host_codegen && host_codegens.empty()) {
    fail(
        "an execution backend enables host codegen but the backend declares no host_codegens; "
        "declare one (e.g. for host kind 'c') or set enable_host_codegen = false");
  }
  for (const auto& [kind, codegen] : host_codegens) {
    if (kind.empty()) fail("declares a host codegen under an empty host target kind");
    if (codegen.name.empty()) fail("the host codegen for '" + kind + "' has an empty name");
    if (!codegen.build) fail("host codegen '" + codegen.name + "' has no build function");
  }
  for (const auto& [callback_name, callback] : callbacks) {
    if (callback_name.empty()) fail("declares a callback with an empty name");
    if (!callback) fail("callback '" + callback_name + "' has no function");
  }
}

std::string BackendModule::description() const {
  std::string text = "backend " + name + "\ntarget_kinds " + target::join_names(target_kinds);
  for (const auto& [kind, pipeline] : pipelines) {
    text += "\npipeline " + kind + " " + pipeline.name() + " [" +
            target::join_names(pipeline.pass_names()) + "]";
  }
  for (const auto& [kind, codegen] : device_codegens) {
    text += "\ndevice_codegen " + kind + " " + codegen.name + (codegen.build ? " build" : "") +
            (codegen.build_without_compile ? " build_without_compile" : "");
  }
  for (const auto& spec : execution_backends) {
    text += "\nexecution_backend " + spec.name + (spec.enable_host_codegen ? " host" : "") +
            (spec.enable_device_compile ? " device_compile" : "") +
            (spec.supports_target ? " predicate" : "");
  }
  text += std::string("\nsupports_target ") + (supports_target ? "yes" : "no");
  for (const auto& [kind, codegen] : host_codegens) {
    text += "\nhost_codegen " + kind + " " + codegen.name +
            (codegen.supports_target ? " predicate" : "");
  }
  for (const auto& [kind, hooks] : host_codegen_hooks) {
    for (const auto& hook : hooks) {
      text += "\nhook " + kind + " " + hook.name + (hook.supports_target ? " predicate" : "");
    }
  }
  for (const auto& [callback_name, callback] : callbacks) text += "\ncallback " + callback_name;
  return text;
}

namespace {

using target::detail::same_callable;

std::string first_line_difference(const std::string& a, const std::string& b) {
  size_t start = 0;
  while (start < a.size() && start < b.size()) {
    size_t end_a = a.find('\n', start), end_b = b.find('\n', start);
    std::string line_a = a.substr(start, end_a - start), line_b = b.substr(start, end_b - start);
    if (line_a != line_b) return "registered has '" + line_a + "', new has '" + line_b + "'";
    if (end_a == std::string::npos || end_b == std::string::npos) break;
    start = end_a + 1;
  }
  return a.size() < b.size() ? "the new declaration has more components"
                             : "the registered declaration has more components";
}

// Equal descriptions guarantee equal keys, names and counts below; only the
// callables are left to compare. Returns the first component whose callable differs.
std::string callable_difference(const BackendModule& a, const BackendModule& b) {
  for (const auto& [kind, pipeline] : a.pipelines) {
    const auto& passes = pipeline.passes();
    const auto& other = b.pipelines.at(kind).passes();
    if (other.size() != passes.size()) return "pipeline[" + kind + "]";
    for (size_t i = 0; i < passes.size(); ++i) {
      if (!same_callable(passes[i].fn, other[i].fn)) {
        return "pass '" + passes[i].name + "' of pipeline[" + kind + "]";
      }
    }
  }
  for (const auto& [kind, codegen] : a.device_codegens) {
    const auto& other = b.device_codegens.at(kind);
    if (!same_callable(codegen.build, other.build) ||
        !same_callable(codegen.build_without_compile, other.build_without_compile)) {
      return "device codegen '" + codegen.name + "' for '" + kind + "'";
    }
  }
  for (size_t i = 0; i < a.execution_backends.size(); ++i) {
    const auto &spec = a.execution_backends[i], &other = b.execution_backends[i];
    if (!same_callable(spec.is_available, other.is_available) ||
        !same_callable(spec.supports_target, other.supports_target)) {
      return "execution backend '" + spec.name + "'";
    }
  }
  if (!same_callable(a.supports_target, b.supports_target)) return "supports_target";
  for (const auto& [kind, codegen] : a.host_codegens) {
    const auto& other = b.host_codegens.at(kind);
    if (!same_callable(codegen.build, other.build) ||
        !same_callable(codegen.supports_target, other.supports_target)) {
      return "host codegen '" + codegen.name + "' for '" + kind + "'";
    }
  }
  for (const auto& [kind, hooks] : a.host_codegen_hooks) {
    const auto& other = b.host_codegen_hooks.at(kind);
    if (other.size() != hooks.size()) return "the host codegen hooks for '" + kind + "'";
    for (size_t i = 0; i < hooks.size(); ++i) {
      if (!same_callable(hooks[i].apply, other[i].apply) ||
          !same_callable(hooks[i].supports_target, other[i].supports_target)) {
        return "host codegen hook '" + hooks[i].name + "' for '" + kind + "'";
      }
    }
  }
  for (const auto& [name, callback] : a.callbacks) {
    if (!same_callable(callback, b.callbacks.at(name))) return "callback '" + name + "'";
  }
  return "";
}

void require_kind(const BackendModule& module, const target::Target& target) {
  const auto& kinds = module.target_kinds;
  if (std::find(kinds.begin(), kinds.end(), target.kind()) == kinds.end()) {
    throw BackendError("backend '" + module.name + "' does not own target kind '" + target.kind() +
                       "' (target '" + target.str() + "'); it owns: " + target::join_names(kinds));
  }
}

}  // namespace

std::string BackendModule::difference_from(const BackendModule& other) const {
  if (this == &other) return "";
  std::string mine = description(), theirs = other.description();
  if (mine != theirs) return first_line_difference(mine, theirs);
  std::string component = callable_difference(*this, other);
  if (component.empty()) return "";
  return "the same names, but a different function for " + component;
}

bool BackendModule::same_declaration(const BackendModule& other) const {
  return difference_from(other).empty();
}

bool BackendModule::matches(const target::Target& target) const {
  const auto& kind = target.kind();
  if (std::find(target_kinds.begin(), target_kinds.end(), kind) == target_kinds.end()) return false;
  return !supports_target || !*supports_target || (*supports_target)(target);
}

const transform::PassPipeline& BackendModule::get_pipeline(const target::Target& target) const {
  require_kind(*this, target);
  auto it = pipelines.find(target.kind());
  if (it == pipelines.end()) {
    throw BackendError("backend '" + name + "' declares no pipeline for target kind '" +
                       target.kind() + "'");
  }
  return it->second;
}

ir::IRModule BackendModule::lower(const ir::IRModule& mod, const target::Target& target) const {
  return get_pipeline(target).lower(mod, target);
}

const DeviceCodegen& BackendModule::get_device_codegen(const target::Target& target) const {
  require_kind(*this, target);
  auto it = device_codegens.find(target.kind());
  if (it == device_codegens.end()) {
    throw BackendError("backend '" + name + "' declares no device codegen for target kind '" +
                       target.kind() + "'");
  }
  return it->second;
}

CodeArtifact BackendModule::codegen_device(const ir::IRModule& mod, const target::Target& target,
                                           bool compile_device) const {
  return get_device_codegen(target).codegen(mod, target, compile_device);
}

HostCodegen BackendModule::get_host_codegen(const target::Target& target_host) const {
  auto it = host_codegens.find(target_host.kind());
  if (it != host_codegens.end() && it->second.matches(target_host)) return it->second;
  try {
    return resolve_host_codegen(target_host);
  } catch (const BackendError& error) {
    throw BackendError("backend '" + name + "' has no host codegen for '" + target_host.str() +
                       "' (its own: " + target::join_names(keys_of(host_codegens)) +
                       "): " + error.what());
  }
}

CodeArtifact BackendModule::codegen_host(const ir::IRModule& mod,
                                         const target::Target& target_host) const {
  return get_host_codegen(target_host).lower(mod, target_host);
}

ir::IRModule BackendModule::preprocess_host_codegen(const ir::IRModule& mod,
                                                    const target::Target& target_host,
                                                    const target::Target& target) const {
  require_kind(*this, target);
  return apply_host_codegen_hooks(mod, target_host, &target);
}

std::vector<std::string> BackendModule::allowed_execution_backends(const target::Target& target,
                                                                   bool include_unavailable) const {
  std::vector<std::string> names;
  for (const auto& spec : execution_backends) {
    if (!spec.matches(target)) continue;
    if (!include_unavailable && !spec.available()) continue;
    names.push_back(spec.name);
  }
  return names;
}

ExecutionBackendSpec BackendModule::resolve_execution_backend(std::string_view requested,
                                                              const target::Target& target) const {
  std::string where = "backend '" + name + "' for target '" + target.str() + "'";
  if (requested == "auto") {
    std::string reasons;
    for (const auto& spec : execution_backends) {
      bool supported = spec.matches(target);
      if (supported && spec.available()) return spec;
      reasons +=
          (reasons.empty() ? "" : ", ") + spec.name +
          (supported ? " (not available on this machine)" : " (does not support this target)");
    }
    throw BackendError("no execution backend of " + where + " is available: " + reasons +
                       "; install what the backend needs or choose another target");
  }
  auto allowed = allowed_execution_backends(target, true);
  auto spec = std::find_if(execution_backends.begin(), execution_backends.end(),
                           [&](const ExecutionBackendSpec& s) { return s.name == requested; });
  if (spec == execution_backends.end() || !spec->matches(target)) {
    std::string what =
        spec == execution_backends.end()
            ? "unknown execution backend '" + std::string(requested) + "'" +
                  target::did_you_mean(requested, allowed)
            : "execution backend '" + std::string(requested) + "' does not support this target";
    throw BackendError(what + " for " + where + "; allowed: " + target::join_names(allowed) +
                       "; or use \"auto\" to pick the first available one");
  }
  if (!spec->available()) {
    throw BackendError("execution backend '" + spec->name + "' of " + where +
                       " is not available on this machine; available: " +
                       target::join_names(allowed_execution_backends(target, false)) +
                       "; or use \"auto\" to pick the first available one");
  }
  return *spec;
}

}  // namespace tilec::backend
