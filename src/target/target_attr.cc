#include "tilec/target/target_attr.h"

#include <fmt/format.h>

namespace tilec::target {

std::string_view attr_type_name(AttrType type) {
  switch (type) {
    case AttrType::kBool:
      return "bool";
    case AttrType::kInt:
      return "int";
    case AttrType::kString:
      return "string";
    case AttrType::kStringList:
      return "string list";
  }
  return "unknown";
}

AttrType attr_type_of(const TargetAttr& value) {
  switch (value.index()) {
    case 0:
      return AttrType::kBool;
    case 1:
      return AttrType::kInt;
    case 2:
      return AttrType::kString;
    default:
      return AttrType::kStringList;
  }
}

std::string attr_value_text(const TargetAttr& value) {
  if (const bool* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  if (const int64_t* number = std::get_if<int64_t>(&value)) return std::to_string(*number);
  if (const std::string* text = std::get_if<std::string>(&value)) return *text;
  return fmt::format("{}", fmt::join(std::get<std::vector<std::string>>(value), ","));
}

}  // namespace tilec::target
