#include "tilec/backend/module.h"
#include "tilec/target/detect.h"
#include "tilec/target/nearest_name.h"
#include "tilec/target/registration_journal.h"

#include <algorithm>
#include <mutex>
#include <shared_mutex>

namespace tilec::backend {
namespace {

struct BackendRegistry {
  std::shared_mutex mutex;
  std::vector<BackendModulePtr> modules;  // registration order
};

BackendRegistry& registry() {
  static BackendRegistry instance;
  return instance;
}

void check_shared_kinds(const BackendModule& incoming,
                        const std::vector<BackendModulePtr>& modules) {
  for (const auto& kind : incoming.target_kinds) {
    for (const auto& other : modules) {
      const auto& kinds = other->target_kinds;
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) continue;
      const BackendModule* missing = !other->supports_target     ? other.get()
                                     : !incoming.supports_target ? &incoming
                                                                 : nullptr;
      if (missing) {
        throw BackendError("backends '" + other->name + "' and '" + incoming.name +
                           "' both own target kind '" + kind + "', but '" + missing->name +
                           "' has no supports_target predicate; backends sharing a target kind "
                           "must all declare supports_target so each target selects one backend");
      }
    }
  }
}

void register_components(const BackendModule& backend) {
  for (const auto& [callback_name, callback] : backend.callbacks) {
    register_global_func(backend.name + "." + callback_name, callback);
  }
  for (const auto& [kind, codegen] : backend.host_codegens) register_host_codegen(kind, codegen);
  for (const auto& [kind, hooks] : backend.host_codegen_hooks) {
    for (const auto& hook : hooks) register_host_codegen_hook(kind, hook);
  }
}

std::string describe_backends(const std::vector<BackendModulePtr>& modules) {
  std::vector<std::string> entries;
  for (const auto& module : modules) {
    entries.push_back(module->name + " (" + target::join_names(module->target_kinds) + ")");
  }
  return target::join_names(entries);
}

std::vector<std::string> names_of(const std::vector<BackendModulePtr>& modules) {
  std::vector<std::string> names;
  for (const auto& module : modules) names.push_back(module->name);
  return names;
}

}  // namespace

BackendModulePtr register_backend(const BackendModulePtr& backend) {
  if (!backend) throw BackendError("register_backend: the backend module is null");
  if (is_registered_backend(backend)) return backend;
  // The registry's own const copy: the caller may hold a mutable object behind its pointer.
  return register_backend(BackendModule(*backend));
}

BackendModulePtr register_backend(BackendModule manifest) {
  manifest.validate();
  auto backend = std::make_shared<const BackendModule>(std::move(manifest));
  auto& reg = registry();
  // Declared before the lock: a failed registration is undone after the lock is released.
  target::RegistrationTransaction transaction;
  {
    std::unique_lock lock(reg.mutex);
    for (const auto& existing : reg.modules) {
      if (existing->name != backend->name) continue;
      std::string difference = existing->difference_from(*backend);
      if (difference.empty()) return existing;
      throw BackendError("backend '" + backend->name +
                         "' is already registered with a different declaration (" + difference +
                         "); register the new one under another name");
    }
    check_shared_kinds(*backend, reg.modules);
    try {
      register_components(*backend);
    } catch (const std::exception& error) {
      throw BackendError("register_backend: backend '" + backend->name + "': " + error.what() +
                         "; nothing of it was registered");
    }
    reg.modules.push_back(backend);
  }
  target::journal_undo([backend] {
    auto& reg = registry();
    std::unique_lock lock(reg.mutex);
    std::erase(reg.modules, backend);
  });
  transaction.commit();
  return backend;
}

bool is_registered_backend(const BackendModulePtr& module) {
  if (!module) return false;
  auto& reg = registry();
  std::shared_lock lock(reg.mutex);
  return std::find(reg.modules.begin(), reg.modules.end(), module) != reg.modules.end();
}

BackendModulePtr get_backend(std::string_view name) {
  auto modules = list_backends();
  for (const auto& module : modules) {
    if (module->name == name) return module;
  }
  auto names = names_of(modules);
  throw BackendError(
      "no backend named '" + std::string(name) + "'" + target::did_you_mean(name, names) +
      "; registered backends: " + target::join_names(names) + "; `tilec backends` lists them");
}

std::vector<BackendModulePtr> list_backends() {
  auto& reg = registry();
  std::shared_lock lock(reg.mutex);
  return reg.modules;
}

std::vector<BackendModulePtr> matching_backends(const target::Target& target) {
  std::vector<BackendModulePtr> matches;
  for (const auto& module : list_backends()) {
    if (module->matches(target)) matches.push_back(module);
  }
  return matches;
}

BackendContext create_backend_context(std::string_view target,
                                      std::optional<std::string> target_host,
                                      std::string_view execution_backend) {
  target::Target resolved = target::determine_target(target);
  std::optional<target::Target> host;
  if (target_host && !target_host->empty()) host = target::determine_target(*target_host);
  return create_backend_context(resolved, std::move(host), execution_backend);
}

BackendContext create_backend_context(const target::Target& target,
                                      std::optional<target::Target> target_host,
                                      std::string_view execution_backend) {
  target::Target host = target_host ? *target_host
                        : target.host()
                            ? *target.host()
                            : target::determine_target(target::llvm_enabled() ? "llvm" : "c");
  target::Target device = target.without_host();
  auto modules = list_backends();
  std::vector<BackendModulePtr> owners, matches;
  for (const auto& module : modules) {
    const auto& kinds = module->target_kinds;
    if (std::find(kinds.begin(), kinds.end(), device.kind()) == kinds.end()) continue;
    owners.push_back(module);
    if (module->matches(device)) matches.push_back(module);
  }
  if (matches.size() > 1) {
    throw BackendError("target '" + device.str() +
                       "' matches several backends: " + target::join_names(names_of(matches)) +
                       "; their supports_target predicates must tell such targets apart");
  }
  if (matches.empty()) {
    if (!owners.empty()) {
      throw BackendError("no backend accepts target '" + device.str() +
                         "': the backends owning "
                         "kind '" +
                         device.kind() + "' (" + target::join_names(names_of(owners)) +
                         ") all reject it through supports_target; adjust the target's attributes");
    }
    throw BackendError(
        "no backend is registered for target kind '" + device.kind() + "' (target '" +
        device.str() + "'); registered backends: " + describe_backends(modules) +
        "; choose a target one of them owns, or add a backend for '" + device.kind() +
        "': put its plugin (libtilec_plugin_<name>.so) in a directory listed in "
        "TILEC_PLUGIN_PATH; `tilec backends` lists the plugins found and why any failed");
  }
  const BackendModulePtr& module = matches.front();
  ExecutionBackendSpec spec = module->resolve_execution_backend(execution_backend, device);
  return BackendContext(BackendContext::Registered{}, module, device, host, std::move(spec));
}

}  // namespace tilec::backend
