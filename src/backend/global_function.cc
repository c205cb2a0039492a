#include "tilec/backend/global_function.h"

#include "tilec/backend/backend_error.h"
#include "tilec/target/nearest_name.h"
#include "tilec/target/registration_journal.h"

#include <map>
#include <mutex>
#include <shared_mutex>

namespace tilec::backend {
namespace {

struct FunctionRegistry {
  std::shared_mutex mutex;
  std::map<std::string, GlobalFunc, std::less<>> functions;
};

FunctionRegistry& function_registry() {
  static FunctionRegistry registry;
  return registry;
}

}  // namespace

const char* value_type_name_at(size_t index) {
  static constexpr const char* kNames[] = {"none",  "IRModule", "Target", "string",       "int",
                                           "float", "bool",     "bytes",  "CodeArtifact", "list"};
  static_assert(std::size(kNames) == std::variant_size_v<Value::Storage>);
  return index < std::size(kNames) ? kNames[index] : "unknown";
}

void throw_value_type_error(size_t expected_index, size_t actual_index) {
  throw BackendError(std::string("expected a value of type ") + value_type_name_at(expected_index) +
                     ", got " + value_type_name_at(actual_index));
}

const char* Value::type_name() const {
  return value_type_name_at(storage_.index());
}

void register_global_func(const std::string& name, GlobalFunc fn, bool override) {
  if (name.empty()) throw BackendError("register_global_func: the function name is empty");
  if (!fn) throw BackendError("register_global_func: global function '" + name + "' is empty");
  auto& registry = function_registry();
  std::optional<GlobalFunc> previous;
  {
    std::unique_lock lock(registry.mutex);
    auto it = registry.functions.find(name);
    if (it != registry.functions.end()) {
      // The very same function again changes nothing (and journals nothing, so undoing
      // this caller's registration keeps the first registrant's function).
      if (!override && it->second.same_as(fn)) return;
      if (!override) {
        throw BackendError("global function '" + name +
                           "' is already registered; pass override = true to replace it or "
                           "choose another name (the registered one is a different function: "
                           "re-registering is a no-op only with the very same function)");
      }
      previous = std::move(it->second);
      it->second = std::move(fn);
    } else {
      registry.functions.emplace(name, std::move(fn));
    }
  }
  target::journal_undo([name, previous = std::move(previous)]() mutable {
    auto& registry = function_registry();
    std::unique_lock lock(registry.mutex);
    if (previous)
      registry.functions[name] = std::move(*previous);
    else
      registry.functions.erase(name);
  });
}

std::optional<GlobalFunc> find_global_func(std::string_view name) {
  auto& registry = function_registry();
  std::shared_lock lock(registry.mutex);
  auto it = registry.functions.find(name);
  if (it == registry.functions.end()) return std::nullopt;
  return it->second;
}

GlobalFunc get_global_func(std::string_view name) {
  if (auto fn = find_global_func(name)) return *fn;
  auto names = list_global_funcs();
  throw BackendError("no global function named '" + std::string(name) + "'" +
                     target::did_you_mean(name, names) +
                     "; registered: " + target::join_names(names) +
                     "; register it with register_global_func or a backend manifest's callbacks");
}

std::vector<std::string> list_global_funcs() {
  auto& registry = function_registry();
  std::shared_lock lock(registry.mutex);
  std::vector<std::string> names;
  for (const auto& [name, fn] : registry.functions) names.push_back(name);
  return names;
}

bool remove_global_func(std::string_view name) {
  auto& registry = function_registry();
  std::unique_lock lock(registry.mutex);
  auto it = registry.functions.find(name);
  if (it == registry.functions.end()) return false;
  registry.functions.erase(it);
  return true;
}

}  // namespace tilec::backend
