// Target kinds: the registry of what a target may be, each kind with a typed attribute
// schema and default keys. The backend that owns a kind registers it from its module init
// (src/cpu: c and llvm; src/cuda: cuda; src/rocm: hip; ...; tilec/target/kind_schema.h has
// the building blocks), so the target layer itself knows no kind. Targets are validated
// against their kind's schema when built. The registry is process-wide and thread-safe.
#pragma once

#include "tilec/target/target_attr.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::target {

struct AttrSchema {
  std::string name;  // an identifier: [A-Za-z_][A-Za-z0-9_]*, not "kind", "keys" or "host"
  AttrType type = AttrType::kString;
  std::optional<TargetAttr> default_value;  // must hold `type` when present
  std::string description = {};

  friend bool operator==(const AttrSchema&, const AttrSchema&) = default;
};

struct TargetKind {
  std::string name;  // an identifier, e.g. "cuda"
  std::vector<AttrSchema> attrs;
  std::vector<std::string> default_keys;  // at least one, e.g. {"cuda", "gpu"}
  std::string description = {};

  const AttrSchema* find_attr(std::string_view attr_name) const;  // nullptr when absent
  // "arch (string), max_threads_per_block (int, default 1024), ...", for error messages.
  std::string describe_attrs() const;

  friend bool operator==(const TargetKind&, const TargetKind&) = default;
};

// Validates the whole kind, then publishes it. Re-registering an identical kind returns
// the registered one; a different kind under a taken name needs `override`.
std::shared_ptr<const TargetKind> register_target_kind(TargetKind kind, bool override = false);

// Throws TargetError listing the registered kinds when `name` is not one of them.
std::shared_ptr<const TargetKind> get_target_kind(std::string_view name);
std::shared_ptr<const TargetKind> find_target_kind(std::string_view name);  // nullptr if absent

std::vector<std::shared_ptr<const TargetKind>> list_target_kinds();  // sorted by name
std::vector<std::string> list_target_kind_names();                   // sorted

// Names of the kinds whose schema declares an attribute called `attr_name` (sorted).
std::vector<std::string> target_kinds_with_attr(std::string_view attr_name);

}  // namespace tilec::target
