// tilec::initialize: registers the native execution backend, every built-in module of
// src/engine/builtin_modules.cc (one line per target backend) and the lazy `c` host
// codegen, then loads the modules. Idempotent, thread-safe; failed loads retry next call.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tilec {

void initialize();

struct BuiltinModule {
  std::string import_path;  // "tilec.cpu"
  std::function<void()> initializer;
};
// The list itself (src/engine/builtin_modules.cc).
const std::vector<BuiltinModule>& builtin_modules();

}  // namespace tilec
