// tilec::initialize: registers the native execution backend, every built-in module of
// TILEC_BACKEND_MODULES (the root CMakeLists.txt; builtin_modules.cc is generated from
// it, one line per target backend) and the lazy `c` host
// codegen, then loads the modules. Idempotent, thread-safe; failed built-in loads retry
// next call. After the built-ins it loads, once per process, every plugin found in the
// TILEC_PLUGIN_PATH directories (naming rule in backend/module_loader.h); a plugin that
// fails is recorded (backend::list_plugin_modules) and undone, never thrown.
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
// The list itself (generated from TILEC_BACKEND_MODULES into the build directory).
const std::vector<BuiltinModule>& builtin_modules();

}  // namespace tilec
