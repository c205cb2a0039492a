#include "tilec/transform/pass_context.h"

#include "tilec/target/nearest_name.h"
#include "tilec/target/registration_journal.h"

#include <algorithm>
#include <mutex>
#include <shared_mutex>

namespace tilec::transform {
namespace {

struct KeyRegistry {
  std::shared_mutex mutex;
  std::map<std::string, PassConfigKey> keys;
};

KeyRegistry& key_registry() {
  static KeyRegistry registry;
  return registry;
}

PassConfigType type_of(const PassConfigValue& value) {
  return static_cast<PassConfigType>(value.index());
}

std::string describe(const PassConfigValue& value) {
  return std::visit(
      [](const auto& held) -> std::string {
        using T = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<T, bool>)
          return held ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>)
          return "\"" + held + "\"";
        else
          return std::to_string(held);
      },
      value);
}

std::vector<std::string> declared_key_names() {
  auto& registry = key_registry();
  std::shared_lock lock(registry.mutex);
  std::vector<std::string> names;
  for (const auto& [name, key] : registry.keys) names.push_back(name);
  return names;
}

PassConfigKey lookup_key(std::string_view name) {
  {
    auto& registry = key_registry();
    std::shared_lock lock(registry.mutex);
    auto it = registry.keys.find(std::string(name));
    if (it != registry.keys.end()) return it->second;
  }
  auto names = declared_key_names();
  throw PassError("unknown pass config key '" + std::string(name) + "'" +
                  target::did_you_mean(name, names) + "; declared keys: " +
                  target::join_names(names) + "; declare new keys with register_pass_config_key");
}

// The value converted to the key's type: only int -> float widening is allowed.
PassConfigValue checked_value(const PassConfigKey& key, PassConfigValue value) {
  if (type_of(value) == key.type) return value;
  if (key.type == PassConfigType::kFloat && type_of(value) == PassConfigType::kInt) {
    return static_cast<double>(std::get<int64_t>(value));
  }
  throw PassError("pass config key '" + key.name + "' expects a " + to_string(key.type) +
                  " value, got " + to_string(type_of(value)) + " " + describe(value) +
                  (key.doc.empty() ? "" : " (" + key.doc + ")"));
}

std::vector<std::shared_ptr<const PassContext>>& scope_stack() {
  thread_local std::vector<std::shared_ptr<const PassContext>> stack;
  return stack;
}

}  // namespace

const char* to_string(PassConfigType type) {
  switch (type) {
    case PassConfigType::kBool:
      return "bool";
    case PassConfigType::kInt:
      return "int";
    case PassConfigType::kFloat:
      return "float";
    case PassConfigType::kString:
      return "string";
  }
  return "unknown";
}

void register_pass_config_key(std::string name, PassConfigType type, PassConfigValue default_value,
                              std::string doc) {
  if (name.empty()) throw PassError("register_pass_config_key: the key name is empty");
  PassConfigKey key{name, type, default_value, std::move(doc)};
  key.default_value = checked_value(key, std::move(default_value));
  auto& registry = key_registry();
  {
    std::unique_lock lock(registry.mutex);
    auto it = registry.keys.find(name);
    if (it != registry.keys.end()) {
      const PassConfigKey& old = it->second;
      if (old.type == key.type && old.default_value == key.default_value && old.doc == key.doc) {
        return;
      }
      throw PassError("pass config key '" + name + "' is already declared as " +
                      to_string(old.type) + " with default " + describe(old.default_value) +
                      "; choose another name for a different declaration");
    }
    registry.keys.emplace(name, std::move(key));
  }
  // A failing plugin init undoes its keys with everything else it registered.
  target::journal_undo([name] {
    auto& registry = key_registry();
    std::unique_lock lock(registry.mutex);
    registry.keys.erase(name);
  });
}

std::vector<PassConfigKey> list_pass_config_keys() {
  auto& registry = key_registry();
  std::shared_lock lock(registry.mutex);
  std::vector<PassConfigKey> keys;
  for (const auto& [name, key] : registry.keys) keys.push_back(key);
  return keys;
}

PassContext::PassContext(PassConfig config,
                         std::vector<std::shared_ptr<PassInstrument>> instruments)
    : instruments_(std::move(instruments)) {
  for (auto& [name, value] : config) {
    config_.emplace(name, checked_value(lookup_key(name), std::move(value)));
  }
  for (const auto& instrument : instruments_) {
    if (!instrument) throw PassError("PassContext: an instrument in the list is null");
  }
}

PassConfigValue PassContext::get(std::string_view key) const {
  PassConfigKey declared = lookup_key(key);
  auto it = config_.find(declared.name);
  return it != config_.end() ? it->second : declared.default_value;
}

namespace {
template <class T>
T get_typed(const PassContext& context, std::string_view key, PassConfigType expected) {
  PassConfigValue value = context.get(key);
  if (const T* held = std::get_if<T>(&value)) return *held;
  throw PassError("pass config key '" + std::string(key) + "' holds a " +
                  to_string(type_of(value)) + ", not a " + to_string(expected));
}
}  // namespace

bool PassContext::get_bool(std::string_view key) const {
  return get_typed<bool>(*this, key, PassConfigType::kBool);
}
int64_t PassContext::get_int(std::string_view key) const {
  return get_typed<int64_t>(*this, key, PassConfigType::kInt);
}
double PassContext::get_float(std::string_view key) const {
  return get_typed<double>(*this, key, PassConfigType::kFloat);
}
std::string PassContext::get_string(std::string_view key) const {
  return get_typed<std::string>(*this, key, PassConfigType::kString);
}

const PassContext& PassContext::current() {
  static const PassContext empty_context;
  const auto& stack = scope_stack();
  return stack.empty() ? empty_context : *stack.back();
}

ScopedPassContext::ScopedPassContext(PassContext context)
    : context_(std::make_shared<const PassContext>(std::move(context))) {
  scope_stack().push_back(context_);
}

ScopedPassContext::~ScopedPassContext() {
  auto& stack = scope_stack();
  // Scopes are RAII on one thread, so this one is the innermost.
  if (!stack.empty() && stack.back() == context_) stack.pop_back();
}

}  // namespace tilec::transform
