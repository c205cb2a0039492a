// The built-in modules: one line per target backend compiled into tilec. A new
// target backend adds its line here and touches nothing else that is shared.
#include "tilec/cpu/backend.h"
#include "tilec/engine/initialize.h"

namespace tilec {

const std::vector<BuiltinModule>& builtin_modules() {
  static const std::vector<BuiltinModule> modules = {
      {"tilec.cpu", &cpu::register_cpu_backend},
  };
  return modules;
}

}  // namespace tilec
