// ScopedTarget: RAII "current target" for the calling thread, the first thing the "auto"
// target resolves to. Scopes nest (a stack per thread) and are never shared between
// threads, so one thread's scope cannot change what another thread compiles for.
#pragma once

#include "tilec/target/target.h"

#include <optional>
#include <string_view>

namespace tilec::target {

class ScopedTarget {
 public:
  explicit ScopedTarget(Target target);
  explicit ScopedTarget(std::string_view spec);  // parsed with Target::parse
  ~ScopedTarget();
  ScopedTarget(const ScopedTarget&) = delete;
  ScopedTarget& operator=(const ScopedTarget&) = delete;
};

// The innermost ScopedTarget of this thread, if any.
std::optional<Target> current_target();

}  // namespace tilec::target
