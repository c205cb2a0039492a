// Checks of attribute names and values against a target kind's schema, shared by
// Target::make, the text parser and the JSON reader so all give the same errors
// (internal to src/target).
#pragma once

#include "tilec/target/target_kind.h"

#include <string>
#include <string_view>

namespace tilec::target::detail {

// "a bool", "an int", "a string", "a string list".
std::string attr_type_with_article(AttrType type);

// The schema entry, or a TargetError naming the other kinds that have such an attribute.
const AttrSchema& require_attr(const TargetKind& kind, std::string_view attr_name);

[[noreturn]] void throw_wrong_type(const TargetKind& kind, const AttrSchema& schema,
                                   std::string_view got);

// Type of `value` matches the schema, and list elements are well formed.
void check_attr_value(const TargetKind& kind, const AttrSchema& schema, const TargetAttr& value);

// A list element (key or list attribute entry) must be non-empty and free of ',', which
// separates elements in the text form. `what` names the list for the message.
void check_list_element(std::string_view what, std::string_view element);

}  // namespace tilec::target::detail
