// The readers behind Target::parse and Target::from_json, with the nesting depth that
// keeps a host from having a host of its own (internal to src/target).
#pragma once

#include "tilec/target/target.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace tilec::target::detail {

// depth 0: a target; depth 1: a host target, which may not name a host itself.
Target parse_target_text(std::string_view text, int depth);
Target parse_target_json(const nlohmann::json& object, int depth);

[[noreturn]] void throw_host_of_host();

}  // namespace tilec::target::detail
