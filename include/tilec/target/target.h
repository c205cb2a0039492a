// Target: an immutable, validated description of what to compile for: a kind (see
// target_kind.h), its keys, its attributes (explicit ones plus the schema's defaults) and
// an optional host target. Parsed from "cuda -arch=sm_90 -max_threads_per_block=1024" or
// from JSON; str() is canonical, so parse(t.str()) == t for every target t.
#pragma once

#include "tilec/target/target_attr.h"
#include "tilec/target/target_error.h"
#include "tilec/target/target_kind.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::target {

class Target {
 public:
  // Text form: `kind -name=value ... [-keys=a,b] [-host="kind -name=value"]`. A value is
  // either bare (no whitespace, quotes or backslashes) or double-quoted, where a backslash
  // escapes '"' and itself; a bool attribute may be given as plain `-name`. Text starting with '{'
  // is read as a JSON object (see from_json).
  static Target parse(std::string_view text);

  // {"kind": "cuda", "arch": "sm_90", "keys": ["cuda", "gpu"], "host": "c"}: attributes by
  // name with JSON values of their schema type; "host" is a target string or object.
  static Target from_json(const nlohmann::json& object);

  // Builds a target from already-typed attributes; `keys` defaults to the kind's keys.
  static Target make(std::string_view kind, std::map<std::string, TargetAttr> attrs = {},
                     std::optional<std::vector<std::string>> keys = std::nullopt);

  const std::string& kind() const { return kind_->name; }
  const TargetKind& kind_info() const { return *kind_; }
  const std::vector<std::string>& keys() const { return keys_; }
  bool has_key(std::string_view key) const;

  const std::map<std::string, TargetAttr>& attrs() const { return attrs_; }
  const TargetAttr* attr(std::string_view name) const;

  // Absent attribute -> fallback; an attribute of another type -> TargetError.
  std::string get_string(std::string_view name, std::string fallback = "") const;
  int64_t get_int(std::string_view name, int64_t fallback = 0) const;
  bool get_bool(std::string_view name, bool fallback = false) const;

  std::shared_ptr<const Target> host() const { return host_; }
  // A host target cannot have a host of its own (TargetError).
  Target with_host(const Target& host) const;
  Target without_host() const;

  // Canonical form: kind, attributes that differ from the schema default in name order,
  // -keys, then -host="<host's canonical form>".
  std::string str() const;
  nlohmann::json to_json() const;  // every attribute, keys, and host as an object
  size_t hash() const;

  friend bool operator==(const Target& a, const Target& b);

 private:
  Target(std::shared_ptr<const TargetKind> kind, std::vector<std::string> keys,
         std::map<std::string, TargetAttr> attrs);

  std::shared_ptr<const TargetKind> kind_;
  std::vector<std::string> keys_;
  std::map<std::string, TargetAttr> attrs_;
  std::shared_ptr<const Target> host_;
};

}  // namespace tilec::target

template <>
struct std::hash<tilec::target::Target> {
  size_t operator()(const tilec::target::Target& target) const { return target.hash(); }
};
