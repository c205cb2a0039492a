// TargetAttr is the value of one target attribute; AttrType is the schema type that
// says which alternative of TargetAttr an attribute must hold. Target kinds declare
// types, targets carry values, and the string and JSON forms read and print both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tilec::target {

using TargetAttr = std::variant<bool, int64_t, std::string, std::vector<std::string>>;

enum class AttrType { kBool, kInt, kString, kStringList };

// "bool", "int", "string", "string list": the spelling used in errors and listings.
std::string_view attr_type_name(AttrType type);

AttrType attr_type_of(const TargetAttr& value);

// Human-readable value for messages and listings (lists joined with ',').
std::string attr_value_text(const TargetAttr& value);

}  // namespace tilec::target
