// The hook through which the target layer, which registers no kind of its own, asks the
// layers above to register theirs: the engine installs a loader that loads the built-in
// backend modules and plugins (tilec::initialize()).
#pragma once

#include "tilec/target/target_kind.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::target {

// Sets the installed loader (the engine's: load the built-in modules and plugins), run
// when a kind is looked up and not found and before the kinds are listed, so code that
// asks the target layer directly sees the kinds backends register. Core-only programs
// install none and see only the kinds they register.
void set_target_kind_loader(std::function<void()> loader);

// The registry as it is, without running the loader: for module inits (a backend's
// manifest checks the kinds it owns, which it registered itself), which must not start
// loading the other modules and plugins.
std::shared_ptr<const TargetKind> find_registered_target_kind(std::string_view name);
std::vector<std::string> registered_target_kind_names();  // sorted

}  // namespace tilec::target
