#include "tilec/target/scoped_target.h"

#include <vector>

namespace tilec::target {
namespace {

std::vector<Target>& scope_stack() {
  thread_local std::vector<Target> stack;
  return stack;
}

}  // namespace

ScopedTarget::ScopedTarget(Target target) {
  scope_stack().push_back(std::move(target));
}

ScopedTarget::ScopedTarget(std::string_view spec) : ScopedTarget(Target::parse(spec)) {}

ScopedTarget::~ScopedTarget() {
  scope_stack().pop_back();
}

std::optional<Target> current_target() {
  const auto& stack = scope_stack();
  if (stack.empty()) return std::nullopt;
  return stack.back();
}

}  // namespace tilec::target
