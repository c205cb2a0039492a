#include "tilec/target/target_kind.h"

#include "tilec/target/kind_loader.h"
#include "tilec/target/registry_loader.h"

#include "schema_check.h"
#include "text_util.h"
#include "tilec/target/nearest_name.h"
#include "tilec/target/registration_journal.h"
#include "tilec/target/target_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>

namespace tilec::target {
namespace {

// Names the target text form gives a meaning of its own.
bool is_reserved(std::string_view name) {
  return name == "kind" || name == "keys" || name == "host";
}

void validate(const TargetKind& kind) {
  if (!detail::is_identifier(kind.name)) {
    throw TargetError(
        fmt::format("cannot register target kind '{}': a kind name must be an identifier "
                    "([A-Za-z_][A-Za-z0-9_]*), e.g. 'cuda'",
                    detail::printable(kind.name)));
  }
  if (kind.name == "auto") {
    throw TargetError("cannot register target kind 'auto': \"auto\" means \"detect the target\"");
  }
  auto where = fmt::format("target kind '{}'", kind.name);
  if (kind.default_keys.empty()) {
    throw TargetError(
        fmt::format("cannot register {}: it needs at least one default key, e.g. "
                    "{{\"{}\"}} or {{\"{}\", \"gpu\"}}",
                    where, kind.name, kind.name));
  }
  std::set<std::string_view> seen_keys;
  for (const auto& key : kind.default_keys) {
    detail::check_list_element("the default keys of " + where, key);
    if (!seen_keys.insert(key).second) {
      throw TargetError(fmt::format("cannot register {}: default key '{}' is listed twice", where,
                                    detail::printable(key)));
    }
  }
  std::set<std::string_view> seen_attrs;
  for (const auto& schema : kind.attrs) {
    if (!detail::is_identifier(schema.name) || is_reserved(schema.name)) {
      throw TargetError(fmt::format(
          "cannot register {}: attribute name '{}' must be an identifier other than kind, keys "
          "and host",
          where, detail::printable(schema.name)));
    }
    if (!seen_attrs.insert(schema.name).second) {
      throw TargetError(
          fmt::format("cannot register {}: attribute '{}' is declared twice", where, schema.name));
    }
    if (schema.default_value) {
      try {
        detail::check_attr_value(kind, schema, *schema.default_value);
      } catch (const TargetError& e) {
        throw TargetError(fmt::format("cannot register {}: bad default: {}", where, e.what()));
      }
    }
  }
}

class KindRegistry {
 public:
  std::shared_ptr<const TargetKind> add(TargetKind kind, bool override) {
    validate(kind);
    std::shared_ptr<const TargetKind> published, previous;
    {
      std::unique_lock lock(mutex_);
      auto found = kinds_.find(kind.name);
      if (found != kinds_.end()) {
        if (*found->second == kind) return found->second;
        if (!override) {
          throw TargetError(fmt::format(
              "target kind '{}' is already registered with a different schema ({}); pass "
              "override=true to replace it, or choose another name",
              kind.name, found->second->describe_attrs()));
        }
        previous = found->second;
      }
      published = std::make_shared<const TargetKind>(std::move(kind));
      kinds_[published->name] = published;
    }
    // A failing plugin init undoes its kinds with everything else it registered.
    journal_undo([this, published, previous] {
      std::unique_lock lock(mutex_);
      auto found = kinds_.find(published->name);
      if (found == kinds_.end() || found->second != published) return;
      if (previous)
        found->second = previous;
      else
        kinds_.erase(found);
    });
    return published;
  }

  std::shared_ptr<const TargetKind> find(std::string_view name) const {
    std::shared_lock lock(mutex_);
    auto found = kinds_.find(name);
    return found == kinds_.end() ? nullptr : found->second;
  }

  std::vector<std::shared_ptr<const TargetKind>> all() const {
    std::shared_lock lock(mutex_);
    std::vector<std::shared_ptr<const TargetKind>> kinds;
    for (const auto& [name, kind] : kinds_) kinds.push_back(kind);
    return kinds;
  }

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::shared_ptr<const TargetKind>, std::less<>> kinds_;
};

KindRegistry& registry() {
  static KindRegistry instance;
  return instance;
}

RegistryLoader& loader() {
  static RegistryLoader instance;
  return instance;
}

std::shared_ptr<const TargetKind> find_loading(std::string_view name) {
  if (auto kind = registry().find(name)) return kind;
  loader().run();
  return registry().find(name);
}

std::vector<std::shared_ptr<const TargetKind>> all_loaded() {
  loader().run();
  return registry().all();
}

}  // namespace

const AttrSchema* TargetKind::find_attr(std::string_view attr_name) const {
  auto found = std::find_if(attrs.begin(), attrs.end(),
                            [&](const AttrSchema& schema) { return schema.name == attr_name; });
  return found == attrs.end() ? nullptr : &*found;
}

std::string TargetKind::describe_attrs() const {
  std::vector<std::string> parts;
  for (const auto& schema : attrs) {
    parts.push_back(schema.default_value
                        ? fmt::format("{} ({}, default {})", schema.name,
                                      attr_type_name(schema.type),
                                      attr_value_text(*schema.default_value))
                        : fmt::format("{} ({})", schema.name, attr_type_name(schema.type)));
  }
  return parts.empty() ? std::string("none") : fmt::format("{}", fmt::join(parts, ", "));
}

std::shared_ptr<const TargetKind> register_target_kind(TargetKind kind, bool override) {
  return registry().add(std::move(kind), override);
}

std::shared_ptr<const TargetKind> find_target_kind(std::string_view name) {
  return find_loading(name);
}

std::shared_ptr<const TargetKind> get_target_kind(std::string_view name) {
  if (auto kind = find_loading(name)) return kind;
  std::vector<std::string> names = list_target_kind_names();
  throw TargetError(fmt::format(
      "unknown target kind '{}'{}; known kinds: {} (or \"auto\" to "
      "detect this machine's target); a backend adds its kinds: put a backend plugin "
      "(libtilec_plugin_<name>.so) in a directory listed in TILEC_PLUGIN_PATH, and `tilec "
      "backends` lists the plugins found and why any failed",
      detail::printable(name), did_you_mean(name, names), join_names(names)));
}

std::vector<std::shared_ptr<const TargetKind>> list_target_kinds() {
  return all_loaded();
}

std::vector<std::string> list_target_kind_names() {
  std::vector<std::string> names;
  for (const auto& kind : all_loaded()) names.push_back(kind->name);
  return names;
}

std::vector<std::string> target_kinds_with_attr(std::string_view attr_name) {
  std::vector<std::string> names;
  for (const auto& kind : all_loaded()) {
    if (kind->find_attr(attr_name)) names.push_back(kind->name);
  }
  return names;
}

std::shared_ptr<const TargetKind> find_registered_target_kind(std::string_view name) {
  return registry().find(name);
}

std::vector<std::string> registered_target_kind_names() {
  std::vector<std::string> names;
  for (const auto& kind : registry().all()) names.push_back(kind->name);
  return names;
}

void set_target_kind_loader(std::function<void()> load) {
  loader().set(std::move(load));
}

}  // namespace tilec::target
