// A plugin built against another plugin ABI: the loader must refuse it before
// running its initializer.
#include "tilec/backend/global_function.h"
#include "tilec/backend/module_loader.h"

extern "C" __attribute__((visibility("default"))) int32_t tilec_plugin_abi_version() {
  return TILEC_PLUGIN_ABI_VERSION + 998;
}

extern "C" __attribute__((visibility("default"))) int32_t tilec_plugin_init(
    tilec::backend::PluginRegistrar*) {
  tilec::backend::register_global_func(
      "wrong_abi.ran", [](const tilec::backend::ValueList&) { return tilec::backend::Value(); });
  return 0;
}
