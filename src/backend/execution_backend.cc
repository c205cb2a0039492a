#include "tilec/backend/execution_backend.h"

namespace tilec::backend {

bool ExecutionBackendSpec::matches(const target::Target& target) const {
  return !supports_target || !*supports_target || (*supports_target)(target);
}

bool ExecutionBackendSpec::available() const {
  return !is_available || is_available();
}

}  // namespace tilec::backend
