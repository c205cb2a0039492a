// Resolves an import path (the seed's Python module path, e.g. "tilec.cpu" or
// "acme.backend") to a built-in module initializer or a plugin shared library
// and runs it once. Plugins: for import path P the loader searches each
// directory of TILEC_PLUGIN_PATH (colon-separated, in order) for
// lib<P with '.' and '-' replaced by '_'>.so, then <P>.so; the first found is
// dlopen'ed and must export tilec_plugin_abi_version() == TILEC_PLUGIN_ABI_VERSION
// and tilec_plugin_init (define both with TILEC_DEFINE_PLUGIN). Every registry
// change an initializer makes is journaled: when it fails, all of them are
// undone, the library is dlclose'd and the next load_module tries again.
// Loads of one path are serialized, so it is initialized once however many
// threads ask at once.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#define TILEC_PLUGIN_ABI_VERSION 1

namespace tilec::backend {

// What a plugin's initializer is handed: where it was loaded from, and a slot
// for the failure message (the entry point is extern "C", so the macro below
// catches exceptions inside the plugin and reports them through here).
class PluginRegistrar {
 public:
  PluginRegistrar(std::string import_path, std::string library_path)
      : import_path_(std::move(import_path)), library_path_(std::move(library_path)) {}
  const std::string& import_path() const { return import_path_; }
  const std::string& library_path() const { return library_path_; }
  void fail(std::string message) { error_ = std::move(message); }
  const std::string& error() const { return error_; }

 private:
  std::string import_path_;
  std::string library_path_;
  std::string error_;
};

// Registers an initializer compiled into the program under import_path. An
// identical path registered twice throws unless the initializer is replaced
// before the module was loaded (override).
void register_builtin_module(const std::string& import_path, std::function<void()> initializer,
                             bool override = false);

// Loads import_path once (built-in first, then plugin); throws BackendError
// naming the path and the cause (not found: the directories searched; missing
// symbol; ABI mismatch; the initializer's exception). Registers nothing on failure.
void load_module(const std::string& import_path);

bool is_module_loaded(const std::string& import_path);
std::vector<std::string> list_builtin_modules();  // sorted
std::vector<std::string> list_loaded_modules();   // sorted
// The directories of TILEC_PLUGIN_PATH, in search order.
std::vector<std::string> plugin_search_path();
// The file names tried for import_path, in order ("libacme_backend.so", "acme.backend.so").
std::vector<std::string> plugin_file_names(const std::string& import_path);

}  // namespace tilec::backend

#define TILEC_DEFINE_PLUGIN(init_function)                                               \
  extern "C" __attribute__((visibility("default"))) int32_t tilec_plugin_abi_version() { \
    return TILEC_PLUGIN_ABI_VERSION;                                                     \
  }                                                                                      \
  extern "C" __attribute__((visibility("default"))) int32_t tilec_plugin_init(           \
      ::tilec::backend::PluginRegistrar* registrar) {                                    \
    try {                                                                                \
      init_function(*registrar);                                                         \
      return 0;                                                                          \
    } catch (const std::exception& error) {                                              \
      registrar->fail(error.what());                                                     \
    } catch (...) {                                                                      \
      registrar->fail("unknown exception");                                              \
    }                                                                                    \
    return 1;                                                                            \
  }
