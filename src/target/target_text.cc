// The text form of a target: parsing and the canonical printer.
#include "schema_check.h"
#include "target_forms.h"
#include "text_util.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <set>

namespace tilec::target {
namespace {

struct Option {
  std::string name;
  std::optional<std::string> value;  // nullopt for a bare `-name`
};

class TextReader {
 public:
  explicit TextReader(std::string_view text) : text_(text) {}

  bool at_end() {
    while (pos_ < text_.size() && detail::is_space(text_[pos_])) ++pos_;
    return pos_ >= text_.size();
  }

  std::string_view read_word() {
    size_t start = pos_;
    while (pos_ < text_.size() && !detail::is_space(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  Option read_option() {
    if (text_[pos_] != '-') {
      throw TargetError(fmt::format("expected an option like -name=value, got '{}'",
                                    detail::printable(read_word())));
    }
    ++pos_;
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '=' && !detail::is_space(text_[pos_])) ++pos_;
    Option option{std::string(text_.substr(start, pos_ - start)), std::nullopt};
    if (!detail::is_identifier(option.name)) {
      throw TargetError(fmt::format(
          "'-{}' is not an option name; options look like -name=value with an identifier name",
          detail::printable(option.name)));
    }
    if (pos_ < text_.size() && text_[pos_] == '=') {
      ++pos_;
      option.value = read_value(option.name);
    }
    return option;
  }

 private:
  std::string read_value(std::string_view name) {
    if (pos_ < text_.size() && text_[pos_] == '"') return read_quoted(name);
    std::string_view bare = read_word();
    if (bare.find_first_of("\"\\") != std::string_view::npos) {
      throw TargetError(fmt::format(
          "the value of -{} ('{}') contains a quote or backslash; wrap the whole value in double "
          "quotes and escape them as \\\" and \\\\",
          name, detail::printable(bare)));
    }
    return std::string(bare);
  }

  std::string read_quoted(std::string_view name) {
    ++pos_;
    std::string value;
    while (true) {
      if (pos_ >= text_.size()) {
        throw TargetError(
            fmt::format("the value of -{} has no closing '\"'; add one at its end", name));
      }
      char c = text_[pos_++];
      if (c == '"') break;
      if (c == '\\') {
        if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\\')) {
          throw TargetError(fmt::format(
              "the value of -{} has a backslash not followed by '\"' or '\\'; inside quotes only "
              "\\\" and \\\\ are escapes",
              name));
        }
        c = text_[pos_++];
      }
      value += c;
    }
    if (pos_ < text_.size() && !detail::is_space(text_[pos_])) {
      throw TargetError(fmt::format(
          "the quoted value of -{} is followed by '{}' without a space; separate options with "
          "spaces",
          name, detail::printable(text_.substr(pos_, 1))));
    }
    return value;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

TargetAttr convert(const TargetKind& kind, const AttrSchema& schema,
                   const std::optional<std::string>& value) {
  if (!value && schema.type != AttrType::kBool) {
    throw TargetError(fmt::format("attribute '{}' of target kind '{}' needs a value: -{}=<{}>",
                                  schema.name, kind.name, schema.name,
                                  attr_type_name(schema.type)));
  }
  switch (schema.type) {
    case AttrType::kBool:
      if (!value || *value == "true" || *value == "1") return true;
      if (*value == "false" || *value == "0") return false;
      detail::throw_wrong_type(kind, schema, fmt::format("'{}'", detail::printable(*value)));
    case AttrType::kInt: {
      int64_t number = 0;
      const char* end = value->data() + value->size();
      auto [stop, error] = std::from_chars(value->data(), end, number);
      if (error == std::errc::result_out_of_range) {
        throw TargetError(fmt::format(
            "attribute '{}' of target kind '{}' is out of the 64-bit integer range: '{}'",
            schema.name, kind.name, detail::printable(*value)));
      }
      if (error != std::errc() || stop != end) {
        detail::throw_wrong_type(kind, schema, fmt::format("'{}'", detail::printable(*value)));
      }
      return number;
    }
    case AttrType::kString:
      return *value;
    case AttrType::kStringList:
      return split_list(*value);
  }
  return *value;
}

}  // namespace

namespace detail {

void throw_host_of_host() {
  throw TargetError(
      "a host target cannot have a host of its own; drop the inner -host (or \"host\")");
}

Target parse_target_text(std::string_view text, int depth) {
  TextReader reader(text);
  if (reader.at_end()) {
    throw TargetError(fmt::format(
        "empty target string; write a target kind with options, e.g. 'cuda -arch=sm_90' or 'c', "
        "or \"auto\" (known kinds: {})",
        fmt::join(list_target_kind_names(), ", ")));
  }
  if (text.substr(text.find_first_not_of(" \t\n\r\f\v")).front() == '{') {
    nlohmann::json object;
    try {
      object = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw TargetError(fmt::format("malformed target JSON: {}", e.what()));
    }
    return parse_target_json(object, depth);
  }
  std::shared_ptr<const TargetKind> kind = get_target_kind(reader.read_word());
  std::map<std::string, TargetAttr> attrs;
  std::optional<std::vector<std::string>> keys;
  std::optional<Target> host;
  std::set<std::string> seen;
  while (!reader.at_end()) {
    Option option = reader.read_option();
    if (!seen.insert(option.name).second) {
      throw TargetError(fmt::format("option -{} is given twice; keep one", option.name));
    }
    if (option.name == "keys" || option.name == "host") {
      if (!option.value) {
        throw TargetError(fmt::format("-{} needs a value: {}", option.name,
                                      option.name == "keys" ? "-keys=cuda,gpu" : "-host=\"c\""));
      }
      if (option.name == "keys") {
        keys = split_list(*option.value);
      } else {
        if (depth > 0) throw_host_of_host();
        host = parse_target_text(*option.value, depth + 1);
      }
      continue;
    }
    const AttrSchema& schema = require_attr(*kind, option.name);
    attrs.emplace(option.name, convert(*kind, schema, option.value));
  }
  Target target = Target::make(kind->name, std::move(attrs), std::move(keys));
  return host ? target.with_host(*host) : target;
}

}  // namespace detail

Target Target::parse(std::string_view text) {
  if (size_t bad = detail::first_invalid_utf8(text); bad != std::string_view::npos) {
    throw TargetError(fmt::format(
        "invalid target '{}': byte {} is not UTF-8 (targets are UTF-8 text, as in JSON)",
        detail::printable(text), bad));
  }
  try {
    return detail::parse_target_text(text, 0);
  } catch (const TargetError& e) {
    throw TargetError(fmt::format("invalid target '{}': {}", detail::printable(text), e.what()));
  }
}

std::string Target::str() const {
  std::string out = kind();
  for (const auto& [name, value] : attrs_) {
    const AttrSchema* schema = kind_->find_attr(name);
    if (schema && schema->default_value && *schema->default_value == value) continue;
    out += fmt::format(" -{}={}", name,
                       std::holds_alternative<bool>(value) || std::holds_alternative<int64_t>(value)
                           ? attr_value_text(value)
                           : detail::quote_if_needed(attr_value_text(value)));
  }
  out +=
      fmt::format(" -keys={}", detail::quote_if_needed(fmt::format("{}", fmt::join(keys_, ","))));
  if (host_) out += fmt::format(" -host={}", detail::quote(host_->str()));
  return out;
}

}  // namespace tilec::target
