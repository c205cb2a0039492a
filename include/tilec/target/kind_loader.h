// The hook through which the target layer, which registers no kind of its own, asks the
// layers above to register theirs: the engine installs a loader that loads the built-in
// backend modules and plugins (tilec::initialize()).
#pragma once

#include <functional>

namespace tilec::target {

// Sets the installed loader (the engine's: load the built-in modules and plugins), run
// when a kind is looked up and not found and before the kinds are listed, so code that
// asks the target layer directly sees the kinds backends register. Core-only programs
// install none and see only the kinds they register.
void set_target_kind_loader(std::function<void()> loader);

}  // namespace tilec::target
