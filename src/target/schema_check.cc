#include "schema_check.h"

#include "text_util.h"
#include "tilec/target/nearest_name.h"
#include "tilec/target/target_error.h"

#include <fmt/format.h>

#include <vector>

namespace tilec::target::detail {

std::string attr_type_with_article(AttrType type) {
  return fmt::format("{} {}", type == AttrType::kInt ? "an" : "a", attr_type_name(type));
}

const AttrSchema& require_attr(const TargetKind& kind, std::string_view attr_name) {
  if (const AttrSchema* schema = kind.find_attr(attr_name)) return *schema;
  std::vector<std::string> owners = target_kinds_with_attr(attr_name);
  std::string owned_by = owners.empty()
                             ? std::string("no target kind has an attribute of that name")
                             : fmt::format("it is an attribute of {}", fmt::join(owners, ", "));
  std::vector<std::string> names;
  for (const auto& schema : kind.attrs) names.push_back(schema.name);
  std::string available = kind.attrs.empty()
                              ? std::string("it has no attributes besides -keys and -host")
                              : fmt::format("its attributes: {}", kind.describe_attrs());
  throw TargetError(fmt::format("target kind '{}' has no attribute '{}'{} ({}); {}", kind.name,
                                printable(attr_name), did_you_mean(attr_name, names), owned_by,
                                available));
}

void throw_wrong_type(const TargetKind& kind, const AttrSchema& schema, std::string_view got) {
  throw TargetError(fmt::format(
      "attribute '{}' of target kind '{}' expects {}, got {}{}", schema.name, kind.name,
      attr_type_with_article(schema.type), got,
      schema.type == AttrType::kBool ? " (write true/false, or -" + schema.name + " alone for true)"
      : schema.type == AttrType::kStringList ? " (write comma-separated values)"
                                             : ""));
}

void check_attr_value(const TargetKind& kind, const AttrSchema& schema, const TargetAttr& value) {
  if (attr_type_of(value) != schema.type) {
    throw_wrong_type(kind, schema,
                     fmt::format("{} ('{}')", attr_type_with_article(attr_type_of(value)),
                                 printable(attr_value_text(value))));
  }
  if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    for (const auto& element : *list) {
      check_list_element(fmt::format("attribute '{}' of target kind '{}'", schema.name, kind.name),
                         element);
    }
  }
}

void check_list_element(std::string_view what, std::string_view element) {
  if (element.empty()) {
    throw TargetError(fmt::format("{} has an empty entry; remove the extra ','", what));
  }
  if (element.find(',') != std::string_view::npos) {
    throw TargetError(fmt::format("{} has an entry containing ',' ('{}'); ',' separates entries",
                                  what, printable(element)));
  }
}

}  // namespace tilec::target::detail
