// Target kinds the test plugins own; registering an identical kind twice is a
// no-op, so the tests and every plugin may each ensure them.
#pragma once

#include "tilec/target/target_kind.h"

#include <string>

namespace tilec::testing {

inline void ensure_plugin_kind(const std::string& name) {
  target::register_target_kind(
      {name,
       {{"variant", target::AttrType::kString, std::nullopt, "test variant"}},
       {name},
       "test kind"});
}

}  // namespace tilec::testing
