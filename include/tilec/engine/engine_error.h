// EngineError: a failure of compile() itself or of a Kernel call made with a
// wrong function name or argument list (kernel argument checks throw
// runtime::RuntimeError). Messages say what was wrong, what exists, what to try.
#pragma once

#include <stdexcept>

namespace tilec {

struct EngineError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tilec
