#include "tilec/backend/host_codegen.h"

#include "tilec/backend/backend_error.h"
#include "tilec/backend/global_function.h"
#include "tilec/backend/module_loader.h"
#include "tilec/target/callable_identity.h"
#include "tilec/target/nearest_name.h"
#include "tilec/target/registration_journal.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace tilec::backend {
namespace {

using LazyImports = std::map<std::string, std::vector<std::string>>;

struct HostCodegenRegistry {
  std::shared_mutex mutex;
  std::map<std::string, std::vector<HostCodegen>> codegens;   // host kind -> in order
  std::map<std::string, std::vector<HostCodegenHook>> hooks;  // device kind -> in order
  LazyImports lazy_codegen_imports;                           // host kind -> pending paths
  LazyImports lazy_hook_imports;                              // device kind -> pending paths
};

HostCodegenRegistry& registry() {
  static HostCodegenRegistry instance;
  return instance;
}

bool predicate_accepts(const std::optional<TargetPredicate>& predicate,
                       const target::Target& target) {
  return !predicate || !*predicate || (*predicate)(target);
}

// Loads every pending import for `kind` outside the registry lock (the modules
// register into this registry). A failure propagates and leaves that path
// pending, so the next use retries it.
void load_pending_imports(LazyImports HostCodegenRegistry::*imports, const std::string& kind,
                          const char* what) {
  auto& reg = registry();
  std::vector<std::string> pending;
  {
    std::shared_lock lock(reg.mutex);
    auto it = (reg.*imports).find(kind);
    if (it == (reg.*imports).end()) return;
    pending = it->second;
  }
  for (const auto& path : pending) {
    try {
      load_module(path);
    } catch (const std::exception& error) {
      throw BackendError(std::string("cannot load the ") + what + " registered lazily for kind '" +
                         kind + "' from '" + path + "': " + error.what());
    }
    std::unique_lock lock(reg.mutex);
    auto it = (reg.*imports).find(kind);
    if (it == (reg.*imports).end()) continue;
    std::erase(it->second, path);
    if (it->second.empty()) (reg.*imports).erase(it);
  }
}

void add_lazy_import(LazyImports HostCodegenRegistry::*imports, const std::string& kind,
                     const std::string& import_path, const char* function) {
  if (kind.empty()) throw BackendError(std::string(function) + ": the target kind is empty");
  if (import_path.empty()) {
    throw BackendError(std::string(function) + ": the import path for kind '" + kind +
                       "' is empty");
  }
  if (is_module_loaded(import_path)) return;  // its components are registered already
  auto& reg = registry();
  {
    std::unique_lock lock(reg.mutex);
    auto& paths = (reg.*imports)[kind];
    if (std::find(paths.begin(), paths.end(), import_path) != paths.end()) return;
    paths.push_back(import_path);
  }
  target::journal_undo([imports, kind, import_path] {
    auto& reg = registry();
    std::unique_lock lock(reg.mutex);
    auto it = (reg.*imports).find(kind);
    if (it == (reg.*imports).end()) return;
    std::erase(it->second, import_path);
    if (it->second.empty()) (reg.*imports).erase(it);
  });
}

// The same entry: its function and predicate are the very same callable objects
// (target/callable_identity.h: copies of one entry, or the same plain functions), so
// re-registering it changes nothing. Another closure is never the same entry.
bool same_entry(const HostCodegen& a, const HostCodegen& b) {
  return target::detail::same_callable(a.build, b.build) &&
         target::detail::same_callable(a.supports_target, b.supports_target);
}

bool same_entry(const HostCodegenHook& a, const HostCodegenHook& b) {
  return target::detail::same_callable(a.apply, b.apply) &&
         target::detail::same_callable(a.supports_target, b.supports_target);
}

// Inserts or (with override, always) replaces the entry named like `entry` in the
// kind's list, journaling the inverse. Without override, the same entry under its name
// again is a no-op returning the registered one (nothing journaled, so undoing the
// caller's registration leaves the first registrant's entry in place).
template <class Entry>
Entry publish(std::map<std::string, std::vector<Entry>> HostCodegenRegistry::*table,
              const std::string& kind, Entry entry, bool override, const char* what) {
  auto& reg = registry();
  std::optional<Entry> previous;
  {
    std::unique_lock lock(reg.mutex);
    auto& entries = (reg.*table)[kind];
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const Entry& e) { return e.name == entry.name; });
    if (it != entries.end()) {
      if (!override && same_entry(*it, entry)) return *it;
      if (!override) {
        throw BackendError(std::string(what) + " '" + entry.name +
                           "' is already registered for kind '" + kind +
                           "' with a different function; declare the registered one (the "
                           "same function, e.g. codegen::make_c_host_codegen() for 'c'), pass "
                           "override = true to replace it, or choose another name");
      }
      previous = *it;
      *it = entry;
    } else {
      entries.push_back(entry);
    }
  }
  target::journal_undo([table, kind, name = entry.name, previous] {
    auto& reg = registry();
    std::unique_lock lock(reg.mutex);
    auto found = (reg.*table).find(kind);
    if (found == (reg.*table).end()) return;
    auto& entries = found->second;
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const Entry& e) { return e.name == name; });
    if (it == entries.end()) return;
    if (previous) {
      *it = *previous;
    } else {
      entries.erase(it);
      if (entries.empty()) (reg.*table).erase(found);
    }
  });
  return entry;
}

// How registration errors name one entry type; codegens and hooks are checked alike.
struct Wording {
  const char* api;             // the public function, prefixing every message
  const char* kind;            // "the <kind> is empty"
  const char* entry;           // "the <entry> for kind 'k' has an empty name"
  const char* title;           // "<title> 'name' for kind 'k' has no <function> function"
  const char* function;        // the required callable
  const char* duplicate_what;  // publish's "<what> 'name' is already registered"
};

constexpr Wording kCodegenWording{
    "register_host_codegen", "host target kind", "codegen", "host codegen", "build",
    "host codegen"};
constexpr Wording kHookWording{"register_host_codegen_hook", "target kind", "hook", "hook", "apply",
                               "host codegen hook"};

// Rejects an empty kind, an empty name or a missing callable, then publishes.
template <class Entry, class Function>
Entry validate_and_publish(std::map<std::string, std::vector<Entry>> HostCodegenRegistry::*table,
                           const Wording& words, Function Entry::*function, const std::string& kind,
                           Entry entry, bool override) {
  std::string api = words.api;
  if (kind.empty()) throw BackendError(api + ": the " + words.kind + " is empty");
  if (entry.name.empty()) {
    throw BackendError(api + ": the " + words.entry + " for kind '" + kind + "' has an empty name");
  }
  if (!(entry.*function)) {
    throw BackendError(api + ": " + words.title + " '" + entry.name + "' for kind '" + kind +
                       "' has no " + words.function + " function");
  }
  return publish(table, kind, std::move(entry), override, words.duplicate_what);
}

template <class Entry>
std::vector<std::pair<std::string, std::vector<std::string>>> names_by_kind(
    const std::map<std::string, std::vector<Entry>>& table) {
  std::vector<std::pair<std::string, std::vector<std::string>>> listing;
  for (const auto& [kind, entries] : table) {
    std::vector<std::string> names;
    for (const auto& entry : entries) names.push_back(entry.name);
    listing.emplace_back(kind, std::move(names));
  }
  return listing;
}

std::string describe_registered_codegens() {
  std::string text;
  for (const auto& [kind, names] : list_host_codegens()) {
    if (!text.empty()) text += "; ";
    text += kind + ": " + target::join_names(names);
  }
  return text.empty() ? "(none)" : text;
}

}  // namespace

bool HostCodegen::matches(const target::Target& target_host) const {
  return predicate_accepts(supports_target, target_host);
}

CodeArtifact HostCodegen::lower(const ir::IRModule& mod, const target::Target& target_host) const {
  if (!build) throw BackendError("host codegen '" + name + "' has no build function");
  return build(mod, target_host);
}

bool HostCodegenHook::matches(const target::Target& target) const {
  return predicate_accepts(supports_target, target);
}

ir::IRModule HostCodegenHook::lower(const ir::IRModule& mod, const target::Target& target_host,
                                    const target::Target& target) const {
  if (!apply) throw BackendError("host codegen hook '" + name + "' has no apply function");
  return apply(mod, target_host, &target);
}

HostCodegenFunc global_func_host_codegen(std::string global_func_name) {
  return [name = std::move(global_func_name)](const ir::IRModule& mod,
                                              const target::Target& target_host) {
    Value result = get_global_func(name)(ValueList{Value(mod), Value(target_host)});
    if (!result.is<CodeArtifact>()) {
      throw BackendError("global function '" + name + "' used as a host codegen returned " +
                         result.type_name() + ", expected a CodeArtifact");
    }
    return result.as<CodeArtifact>();
  };
}

HostCodegen register_host_codegen(const std::string& target_host_kind, HostCodegen codegen,
                                  bool override) {
  return validate_and_publish(&HostCodegenRegistry::codegens, kCodegenWording, &HostCodegen::build,
                              target_host_kind, std::move(codegen), override);
}

void register_lazy_host_codegen(const std::string& target_host_kind,
                                const std::string& import_path) {
  add_lazy_import(&HostCodegenRegistry::lazy_codegen_imports, target_host_kind, import_path,
                  "register_lazy_host_codegen");
}

HostCodegenHook register_host_codegen_hook(const std::string& target_kind, HostCodegenHook hook,
                                           bool override) {
  return validate_and_publish(&HostCodegenRegistry::hooks, kHookWording, &HostCodegenHook::apply,
                              target_kind, std::move(hook), override);
}

void register_lazy_host_codegen_hooks(const std::string& target_kind,
                                      const std::string& import_path) {
  add_lazy_import(&HostCodegenRegistry::lazy_hook_imports, target_kind, import_path,
                  "register_lazy_host_codegen_hooks");
}

std::vector<std::string> allowed_host_codegens_for_target(const target::Target& target_host) {
  load_pending_imports(&HostCodegenRegistry::lazy_codegen_imports, target_host.kind(),
                       "host codegen");
  std::vector<HostCodegen> candidates;
  {
    auto& reg = registry();
    std::shared_lock lock(reg.mutex);
    auto it = reg.codegens.find(target_host.kind());
    if (it != reg.codegens.end()) candidates = it->second;
  }
  // Predicates run outside the lock: they are user code and may use registries.
  std::vector<std::string> names;
  for (const auto& codegen : candidates) {
    if (codegen.matches(target_host)) names.push_back(codegen.name);
  }
  return names;
}

ir::IRModule apply_host_codegen_hooks(const ir::IRModule& mod, const target::Target& target_host,
                                      const target::Target* target) {
  if (!target) return mod;
  load_pending_imports(&HostCodegenRegistry::lazy_hook_imports, target->kind(),
                       "host codegen hooks");
  std::vector<HostCodegenHook> hooks;
  {
    auto& reg = registry();
    std::shared_lock lock(reg.mutex);
    auto it = reg.hooks.find(target->kind());
    if (it != reg.hooks.end()) hooks = it->second;
  }
  ir::IRModule result = mod;
  for (const auto& hook : hooks) {
    if (!hook.matches(*target)) continue;
    try {
      result = hook.lower(result, target_host, *target);
    } catch (const std::exception& error) {
      throw BackendError("host codegen hook '" + hook.name + "' for target '" + target->str() +
                         "' failed: " + error.what());
    }
  }
  return result;
}

HostCodegen resolve_host_codegen(const target::Target& target_host) {
  load_pending_imports(&HostCodegenRegistry::lazy_codegen_imports, target_host.kind(),
                       "host codegen");
  std::vector<HostCodegen> candidates;
  {
    auto& reg = registry();
    std::shared_lock lock(reg.mutex);
    auto it = reg.codegens.find(target_host.kind());
    if (it != reg.codegens.end()) candidates = it->second;
  }
  for (const auto& codegen : candidates) {
    if (codegen.matches(target_host)) return codegen;
  }
  std::string why =
      candidates.empty()
          ? "no host codegen is registered for kind '" + target_host.kind() + "'"
          : "every host codegen registered for kind '" + target_host.kind() + "' rejected it";
  throw BackendError("cannot resolve a host codegen for host target '" + target_host.str() +
                     "': " + why + "; registered host codegens: " + describe_registered_codegens() +
                     "; choose another --target-host or register one with register_host_codegen");
}

std::vector<std::pair<std::string, std::vector<std::string>>> list_host_codegens() {
  auto& reg = registry();
  std::shared_lock lock(reg.mutex);
  return names_by_kind(reg.codegens);
}

std::vector<std::pair<std::string, std::vector<std::string>>> list_host_codegen_hooks() {
  auto& reg = registry();
  std::shared_lock lock(reg.mutex);
  return names_by_kind(reg.hooks);
}

std::vector<std::pair<std::string, std::vector<std::string>>> list_lazy_host_codegen_imports() {
  LazyImports pending;
  {
    auto& reg = registry();
    std::shared_lock lock(reg.mutex);
    pending = reg.lazy_codegen_imports;
  }
  // A module loaded directly (not through first use) still sits in the table.
  std::vector<std::pair<std::string, std::vector<std::string>>> listing;
  for (auto& [kind, paths] : pending) {
    std::erase_if(paths, [](const std::string& path) { return is_module_loaded(path); });
    if (!paths.empty()) listing.emplace_back(kind, std::move(paths));
  }
  return listing;
}

}  // namespace tilec::backend
