// TargetError: the one exception type of the target layer. Every bad target string,
// JSON object, schema, registration or detection failure throws it with a message
// that says what was wrong, what is allowed, and what to try.
#pragma once

#include <stdexcept>
#include <string>

namespace tilec::target {

struct TargetError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tilec::target
