#include "tilec/exec/execution_backend.h"

#include "builtin_execution_backends.h"
#include "tilec/target/registration_journal.h"
#include "tilec/target/registry_loader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <mutex>

namespace tilec::exec {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, ExecutionBackendPtr, std::less<>> backends;
};

Registry& registry() {
  static Registry& instance = []() -> Registry& {
    static Registry r;
    for (auto& backend : detail::builtin_execution_backends()) {
      r.backends.emplace(backend->name(), backend);
    }
    return r;
  }();
  return instance;
}

std::string registered_names_locked(const Registry& reg) {
  if (reg.backends.empty()) return "none";
  std::vector<std::string> names;
  for (const auto& [name, backend] : reg.backends) names.push_back(name);
  return fmt::format("{}", fmt::join(names, ", "));
}

target::RegistryLoader& loader() {
  static target::RegistryLoader instance;
  return instance;
}

bool is_registered(std::string_view name) {
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  return reg.backends.find(name) != reg.backends.end();
}

}  // namespace

void set_execution_backend_loader(std::function<void()> load) {
  loader().set(std::move(load));
}

ExecutionBackendPtr register_execution_backend(ExecutionBackendPtr backend, bool override) {
  if (backend == nullptr) throw ExecError("register_execution_backend: the backend is null");
  const std::string& name = backend->name();
  if (name.empty()) throw ExecError("register_execution_backend: the backend's name is empty");
  Registry& reg = registry();
  ExecutionBackendPtr previous;
  {
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto found = reg.backends.find(name);
    if (found != reg.backends.end()) {
      if (found->second == backend) return found->second;
      if (!override) {
        throw ExecError(fmt::format(
            "execution backend '{}' is already registered by another implementation; pass "
            "override=true to replace it",
            name));
      }
      previous = found->second;
      found->second = backend;
    } else {
      reg.backends.emplace(name, backend);
    }
  }
  // A failing plugin init undoes the execution backends it registered.
  target::journal_undo([name = std::string(name), backend, previous] {
    Registry& reg = registry();
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto found = reg.backends.find(name);
    if (found == reg.backends.end() || found->second != backend) return;
    if (previous)
      found->second = previous;
    else
      reg.backends.erase(found);
  });
  return backend;
}

ExecutionBackendPtr get_execution_backend(std::string_view name) {
  if (!is_registered(name)) loader().run();
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto found = reg.backends.find(name);
  if (found == reg.backends.end()) {
    throw ExecError(fmt::format("unknown execution backend '{}'; registered: {}", name,
                                registered_names_locked(reg)));
  }
  return found->second;
}

std::vector<std::string> list_execution_backends() {
  loader().run();
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  std::vector<std::string> names;
  for (const auto& [name, backend] : reg.backends) names.push_back(name);
  return names;
}

bool is_execution_backend_available(std::string_view name) {
  if (!is_registered(name)) {
    try {
      loader().run();
    } catch (...) {
      return false;
    }
  }
  ExecutionBackendPtr backend;
  {
    Registry& reg = registry();
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto found = reg.backends.find(name);
    if (found == reg.backends.end()) return false;
    backend = found->second;
  }
  try {
    return backend->available();
  } catch (...) {
    return false;
  }
}

}  // namespace tilec::exec
