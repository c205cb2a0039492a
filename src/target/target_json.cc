// The JSON form of a target.
#include "schema_check.h"
#include "target_forms.h"
#include "text_util.h"

#include <fmt/format.h>

#include <limits>

namespace tilec::target {
namespace {

std::string describe(const nlohmann::json& value) {
  return fmt::format(
      "{} {}", value.type_name(),
      detail::printable(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 60));
}

std::vector<std::string> string_array(const nlohmann::json& value, std::string_view what) {
  if (!value.is_array()) {
    throw TargetError(fmt::format("{} must be an array of strings, got {}", what, describe(value)));
  }
  std::vector<std::string> strings;
  for (const auto& element : value) {
    if (!element.is_string()) {
      throw TargetError(
          fmt::format("{} must be an array of strings, but holds {}", what, describe(element)));
    }
    strings.push_back(element.get<std::string>());
  }
  return strings;
}

TargetAttr convert(const TargetKind& kind, const AttrSchema& schema, const nlohmann::json& value) {
  switch (schema.type) {
    case AttrType::kBool:
      if (value.is_boolean()) return value.get<bool>();
      break;
    case AttrType::kInt:
      if (value.is_number_unsigned() &&
          value.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
        throw TargetError(
            fmt::format("attribute '{}' of target kind '{}' is out of the 64-bit integer range: {}",
                        schema.name, kind.name, value.dump()));
      }
      if (value.is_number_integer()) return value.get<int64_t>();
      break;
    case AttrType::kString:
      if (value.is_string()) return value.get<std::string>();
      break;
    case AttrType::kStringList:
      if (value.is_array()) {
        return string_array(
            value, fmt::format("attribute '{}' of target kind '{}'", schema.name, kind.name));
      }
      break;
  }
  detail::throw_wrong_type(kind, schema, describe(value));
}

}  // namespace

namespace detail {

Target parse_target_json(const nlohmann::json& object, int depth) {
  if (!object.is_object()) {
    throw TargetError(fmt::format(
        "a target in JSON must be an object like {{\"kind\": \"cuda\", \"arch\": \"sm_90\"}}, "
        "got {}",
        describe(object)));
  }
  auto kind_field = object.find("kind");
  if (kind_field == object.end() || !kind_field->is_string()) {
    throw TargetError(
        fmt::format("a target object needs a string \"kind\" (one of {}), got {}",
                    fmt::join(list_target_kind_names(), ", "),
                    kind_field == object.end() ? std::string("none") : describe(*kind_field)));
  }
  std::shared_ptr<const TargetKind> kind = get_target_kind(kind_field->get<std::string>());
  std::map<std::string, TargetAttr> attrs;
  std::optional<std::vector<std::string>> keys;
  std::optional<Target> host;
  for (const auto& [name, value] : object.items()) {
    if (name == "kind") continue;
    if (name == "keys") {
      keys = string_array(value, "\"keys\"");
    } else if (name == "host") {
      if (depth > 0) throw_host_of_host();
      if (value.is_string()) {
        host = parse_target_text(value.get<std::string>(), depth + 1);
      } else if (value.is_object()) {
        host = parse_target_json(value, depth + 1);
      } else {
        throw TargetError(fmt::format(
            "\"host\" must be a target string or object, e.g. \"c\", got {}", describe(value)));
      }
    } else {
      attrs.emplace(name, convert(*kind, require_attr(*kind, name), value));
    }
  }
  Target target = Target::make(kind->name, std::move(attrs), std::move(keys));
  return host ? target.with_host(*host) : target;
}

}  // namespace detail

Target Target::from_json(const nlohmann::json& object) {
  try {
    return detail::parse_target_json(object, 0);
  } catch (const TargetError& e) {
    throw TargetError(fmt::format("invalid target JSON: {}", e.what()));
  }
}

nlohmann::json Target::to_json() const {
  nlohmann::json object = nlohmann::json::object();
  object["kind"] = kind();
  object["keys"] = keys_;
  for (const auto& [name, value] : attrs_) {
    std::visit([&, &name = name](const auto& held) { object[name] = held; }, value);
  }
  if (host_) object["host"] = host_->to_json();
  return object;
}

}  // namespace tilec::target
