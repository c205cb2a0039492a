// The target kinds every tilec process knows (internal to src/target; the kind registry
// registers them when it is first used).
#pragma once

#include "tilec/target/target_kind.h"

#include <vector>

namespace tilec::target::detail {

std::vector<TargetKind> builtin_target_kinds();

}  // namespace tilec::target::detail
