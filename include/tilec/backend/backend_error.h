// BackendError: every failure of the backend layer (bad manifest, no matching
// backend, unknown codegen, failed module load) throws this, with a message that
// says what was wrong, what is available and what to try.
#pragma once

#include <stdexcept>

namespace tilec::backend {

struct BackendError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tilec::backend
