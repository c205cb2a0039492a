// A shared library that is not a tilec plugin: it exports the ABI version but no
// tilec_plugin_init entry point.
#include "tilec/backend/module_loader.h"

extern "C" __attribute__((visibility("default"))) int32_t tilec_plugin_abi_version() {
  return TILEC_PLUGIN_ABI_VERSION;
}

extern "C" __attribute__((visibility("default"))) int32_t tilec_not_an_entry_point() {
  return 7;
}
