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
//
// Plugins that load themselves: tilec::initialize() calls
// load_plugins_from_search_path() once per process, after the built-in modules.
// The naming rule: in each TILEC_PLUGIN_PATH directory, every regular file named
// libtilec_plugin_<name>.so (<name>: letters, digits, '_') is a backend plugin with
// import path "tilec_plugin_<name>"; other files are left alone. The import path
// maps back to the same file name, so register_lazy_host_codegen(kind,
// "tilec_plugin_<name>") names the same module and never loads it twice. A name
// present in several directories loads from the first one, as PATH does.
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
// What the loader knows of one plugin: where it was loaded from (or found), and
// the cause when its last load failed.
struct PluginStatus {
  std::string import_path;
  std::string library_path;  // empty when no file was found
  bool loaded = false;
  std::string error;  // why the last load failed; empty once loaded
};

// Loads every plugin the naming rule finds in the TILEC_PLUGIN_PATH directories
// (in directory order, then by file name). Never throws for a bad plugin: each
// failure is recorded (list_plugin_modules) and undone, and the rest still load.
std::vector<PluginStatus> load_plugins_from_search_path();
// The file names in `directory` that follow the naming rule, as import paths (sorted).
std::vector<std::string> discover_plugins(const std::string& directory);
// Every plugin the loader has tried, found by the naming rule or imported by
// load_module: the loaded ones with their library path, failed ones with the cause.
std::vector<PluginStatus> list_plugin_modules();  // sorted by import path

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
