// ExecutionBackendSpec: a target backend's compatibility declaration for one
// shared execution backend (native, nvrtc, ...): whether it is usable here,
// which targets it accepts, and whether it consumes host code and compiled
// device code. The implementation itself lives in tilec::exec.
#pragma once

#include "tilec/target/callable_identity.h"
#include "tilec/target/target.h"

#include <functional>
#include <optional>
#include <string>

namespace tilec::backend {

// Callables shared by copies and compared by identity (target/callable_identity.h).
using TargetPredicate = target::SharedFunction<bool(const target::Target&)>;
using AvailabilityFunc = target::SharedFunction<bool()>;

struct ExecutionBackendSpec {
  std::string name{};
  AvailabilityFunc is_available{};                   // empty: always available
  std::optional<TargetPredicate> supports_target{};  // none: every target of the backend
  bool enable_host_codegen = true;
  bool enable_device_compile = true;

  bool matches(const target::Target& target) const;
  bool available() const;
};

}  // namespace tilec::backend
