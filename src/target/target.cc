#include "tilec/target/target.h"

#include "schema_check.h"
#include "text_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

namespace tilec::target {
namespace {

void hash_combine(size_t& seed, size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

size_t hash_attr(const TargetAttr& value) {
  size_t seed = value.index();
  std::visit(
      [&](const auto& held) {
        using T = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          for (const auto& element : held) hash_combine(seed, std::hash<std::string>{}(element));
        } else {
          hash_combine(seed, std::hash<T>{}(held));
        }
      },
      value);
  return seed;
}

}  // namespace

Target::Target(std::shared_ptr<const TargetKind> kind, std::vector<std::string> keys,
               std::map<std::string, TargetAttr> attrs)
    : kind_(std::move(kind)), keys_(std::move(keys)), attrs_(std::move(attrs)) {}

Target Target::make(std::string_view kind_name, std::map<std::string, TargetAttr> attrs,
                    std::optional<std::vector<std::string>> keys) {
  std::shared_ptr<const TargetKind> kind = get_target_kind(kind_name);
  for (const auto& [name, value] : attrs) {
    detail::check_attr_value(*kind, detail::require_attr(*kind, name), value);
  }
  for (const auto& schema : kind->attrs) {
    if (schema.default_value) attrs.emplace(schema.name, *schema.default_value);
  }
  if (keys) {
    if (keys->empty()) {
      throw TargetError(fmt::format(
          "target of kind '{}' has an empty key list; give at least one key (its default keys: "
          "{}), or leave -keys out",
          kind->name, fmt::join(kind->default_keys, ",")));
    }
    std::set<std::string_view> seen;
    for (const auto& key : *keys) {
      detail::check_list_element(fmt::format("the keys of a '{}' target", kind->name), key);
      if (!seen.insert(key).second) {
        throw TargetError(fmt::format("key '{}' is given twice in the keys of a '{}' target",
                                      detail::printable(key), kind->name));
      }
    }
  }
  std::vector<std::string> final_keys = keys ? std::move(*keys) : kind->default_keys;
  return Target(std::move(kind), std::move(final_keys), std::move(attrs));
}

bool Target::has_key(std::string_view key) const {
  return std::find(keys_.begin(), keys_.end(), key) != keys_.end();
}

const TargetAttr* Target::attr(std::string_view name) const {
  auto found = attrs_.find(std::string(name));
  return found == attrs_.end() ? nullptr : &found->second;
}

namespace {

template <typename T>
const T* typed_attr(const Target& target, std::string_view name, const char* wanted) {
  const TargetAttr* value = target.attr(name);
  if (!value) return nullptr;
  if (const T* held = std::get_if<T>(value)) return held;
  throw TargetError(fmt::format(
      "attribute '{}' of target '{}' is {}, not {}; read it with the "
      "matching getter or attr()",
      name, target.str(), detail::attr_type_with_article(attr_type_of(*value)), wanted));
}

}  // namespace

std::string Target::get_string(std::string_view name, std::string fallback) const {
  const std::string* value = typed_attr<std::string>(*this, name, "a string");
  return value ? *value : fallback;
}

int64_t Target::get_int(std::string_view name, int64_t fallback) const {
  const int64_t* value = typed_attr<int64_t>(*this, name, "an int");
  return value ? *value : fallback;
}

bool Target::get_bool(std::string_view name, bool fallback) const {
  const bool* value = typed_attr<bool>(*this, name, "a bool");
  return value ? *value : fallback;
}

Target Target::with_host(const Target& host) const {
  if (host.host_) {
    throw TargetError(
        fmt::format("host target '{}' has a host of its own; a host target cannot have one (use "
                    "without_host() on it first)",
                    host.str()));
  }
  Target result = *this;
  result.host_ = std::make_shared<const Target>(host);
  return result;
}

Target Target::without_host() const {
  Target result = *this;
  result.host_.reset();
  return result;
}

size_t Target::hash() const {
  size_t seed = std::hash<std::string>{}(kind());
  for (const auto& key : keys_) hash_combine(seed, std::hash<std::string>{}(key));
  for (const auto& [name, value] : attrs_) {
    hash_combine(seed, std::hash<std::string>{}(name));
    hash_combine(seed, hash_attr(value));
  }
  hash_combine(seed, host_ ? host_->hash() : 0);
  return seed;
}

bool operator==(const Target& a, const Target& b) {
  if (a.kind() != b.kind() || a.keys_ != b.keys_ || a.attrs_ != b.attrs_) return false;
  if (!a.host_ || !b.host_) return !a.host_ && !b.host_;
  return *a.host_ == *b.host_;
}

}  // namespace tilec::target
