// tilec::initialize: registers what the library provides — the native execution
// backend, every built-in module of src/engine/builtin_modules.cc (one line per
// target backend) and the lazy `c` host codegen — then loads the built-in
// modules. Idempotent and thread-safe; a module that failed to load is retried
// on the next call.
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
