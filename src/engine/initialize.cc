#include "tilec/engine/initialize.h"

#include "tilec/backend/host_codegen.h"
#include "tilec/backend/module_loader.h"
#include "tilec/exec/emulator.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/target/kind_loader.h"
#include "tilec/transform/bounds_check.h"

#include <mutex>

namespace tilec {
namespace {

// A lookup of an execution backend that a module registers (opencl, nvrtc, wgpu, ...)
// loads the built-in modules first, as compile() does, so code that asks the exec layer
// directly finds them too.
// initialize() on this thread is running (a module or plugin init inside it looks an
// execution backend up): the loader must not enter its once-flags again.
thread_local bool initializing = false;

[[maybe_unused]] const bool kExecutionBackendLoaderInstalled =
    (exec::set_execution_backend_loader([] {
       if (!initializing) initialize();
     }),
     true);

// Target kinds are registered by the backends that own them, so a lookup of a kind
// (Target::parse("cuda")) loads the built-in modules and plugins first, the same way.
[[maybe_unused]] const bool kTargetKindLoaderInstalled = (target::set_target_kind_loader([] {
                                                            if (!initializing) initialize();
                                                          }),
                                                          true);

struct InitializingScope {
  bool outer = initializing;
  InitializingScope() { initializing = true; }
  ~InitializingScope() { initializing = outer; }
};

}  // namespace

void initialize() {
  InitializingScope scope;
  static std::once_flag registered;
  std::call_once(registered, [] {
    for (const auto& module : builtin_modules()) {
      backend::register_builtin_module(module.import_path, module.initializer);
    }
    // The seed's lazy import: the `c` host codegen comes with the cpu module.
    backend::register_lazy_host_codegen("c", "tilec.cpu");
    // compile() checks that a target honoured it, whichever backend lowers.
    transform::register_bounds_check_config_key();
    exec::register_emulator_config_keys();
  });
  // load_module is a no-op for a loaded module and retries one that failed.
  for (const auto& module : builtin_modules()) backend::load_module(module.import_path);
  // Then the plugins of TILEC_PLUGIN_PATH, once per process. A bad plugin never
  // throws here: its failure is recorded (`tilec backends`) and undone.
  static std::once_flag plugins_loaded;
  std::call_once(plugins_loaded, [] { backend::load_plugins_from_search_path(); });
}

}  // namespace tilec
