// ExecutionBackendSpec: a target backend's compatibility declaration for one
// shared execution backend (native, nvrtc, ...): whether it is usable here,
// which targets it accepts, and whether it consumes host code and compiled
// device code. The implementation itself lives in tilec::exec.
#pragma once

#include "tilec/target/target.h"

#include <functional>
#include <optional>
#include <string>

namespace tilec::backend {

using TargetPredicate = std::function<bool(const target::Target&)>;

struct ExecutionBackendSpec {
  std::string name{};
  std::function<bool()> is_available{};              // empty: always available
  std::optional<TargetPredicate> supports_target{};  // none: every target of the backend
  bool enable_host_codegen = true;
  bool enable_device_compile = true;

  bool matches(const target::Target& target) const;
  bool available() const;
};

}  // namespace tilec::backend
