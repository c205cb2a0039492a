#include "tilec/backend/module_loader.h"

#include "tilec/backend/backend_error.h"
#include "tilec/target/nearest_name.h"
#include "tilec/target/registration_journal.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace tilec::backend {
namespace {

struct ModuleState {
  std::mutex load_mutex;  // serializes loads of this path
  std::atomic<bool> loaded{false};
};

struct Loader {
  std::mutex mutex;  // guards the maps, never held while a module initializes
  std::map<std::string, std::function<void()>> builtins;
  std::map<std::string, std::shared_ptr<ModuleState>> states;
  std::map<std::string, PluginStatus> plugins;  // every plugin tried, by import path
};

Loader& loader() {
  static Loader instance;
  return instance;
}

// Import paths being initialized on this thread, to report cycles instead of deadlocking.
thread_local std::vector<std::string> loading_stack;

using AbiVersionFunc = int32_t (*)();
using PluginInitFunc = int32_t (*)(PluginRegistrar*);

void check_import_path(const std::string& import_path) {
  if (import_path.empty()) throw BackendError("load_module: the import path is empty");
  for (char c : import_path) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
    if (!ok) {
      throw BackendError("invalid import path '" + import_path +
                         "': use letters, digits, '_', '-' and '.' (e.g. \"acme.backend\"); "
                         "plugin directories come from TILEC_PLUGIN_PATH");
    }
  }
}

std::shared_ptr<ModuleState> state_for(const std::string& import_path) {
  auto& l = loader();
  std::lock_guard lock(l.mutex);
  auto& state = l.states[import_path];
  if (!state) state = std::make_shared<ModuleState>();
  return state;
}

std::optional<std::function<void()>> find_builtin(const std::string& import_path) {
  auto& l = loader();
  std::lock_guard lock(l.mutex);
  auto it = l.builtins.find(import_path);
  if (it == l.builtins.end()) return std::nullopt;
  return it->second;
}

void run_builtin(const std::string& import_path, const std::function<void()>& initializer) {
  target::RegistrationTransaction transaction;
  try {
    initializer();
  } catch (const std::exception& error) {
    throw BackendError("initializing built-in module '" + import_path +
                       "' failed: " + error.what() + "; nothing it registered was kept");
  }
  transaction.commit();
}

struct LibraryCloser {
  void operator()(void* handle) const { dlclose(handle); }
};
using LibraryHandle = std::unique_ptr<void, LibraryCloser>;

std::string plugin_not_found_message(const std::string& import_path) {
  auto dirs = plugin_search_path();
  auto builtins = list_builtin_modules();
  return "cannot import '" + import_path + "': it is not a built-in module" +
         target::did_you_mean(import_path, builtins) +
         " (built-in: " + target::join_names(builtins) + ") and no plugin library " +
         target::join_names(plugin_file_names(import_path)) +
         " was found in the TILEC_PLUGIN_PATH directories " + target::join_names(dirs) +
         "; add the plugin's directory to TILEC_PLUGIN_PATH";
}

// Records what the last load of a plugin found (library_path, when not empty) and
// how it ended (error; empty on success), for list_plugin_modules.
void record_plugin(const std::string& import_path, const std::string& library_path,
                   const std::string& error) {
  auto& l = loader();
  std::lock_guard lock(l.mutex);
  PluginStatus& status = l.plugins[import_path];
  status.import_path = import_path;
  if (!library_path.empty()) status.library_path = library_path;
  status.error = error;
}

// Loads the plugin for import_path; library_path is set as soon as its file is found.
void run_plugin(const std::string& import_path, std::string& library_path) {
  for (const auto& dir : plugin_search_path()) {
    for (const auto& file : plugin_file_names(import_path)) {
      std::filesystem::path candidate = std::filesystem::path(dir) / file;
      std::error_code ignored;
      if (std::filesystem::is_regular_file(candidate, ignored)) {
        library_path = candidate.string();
        break;
      }
    }
    if (!library_path.empty()) break;
  }
  if (library_path.empty()) throw BackendError(plugin_not_found_message(import_path));

  std::string where = "plugin '" + import_path + "' (" + library_path + ")";
  LibraryHandle library(dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!library) {
    const char* reason = dlerror();
    throw BackendError("cannot load " + where + ": " + (reason ? reason : "dlopen failed"));
  }
  auto abi_version =
      reinterpret_cast<AbiVersionFunc>(dlsym(library.get(), "tilec_plugin_abi_version"));
  auto init = reinterpret_cast<PluginInitFunc>(dlsym(library.get(), "tilec_plugin_init"));
  if (!abi_version || !init) {
    throw BackendError("cannot load " + where + ": it does not export " +
                       (!abi_version ? "tilec_plugin_abi_version" : "tilec_plugin_init") +
                       "; define the plugin's entry points with TILEC_DEFINE_PLUGIN");
  }
  int32_t version = abi_version();
  if (version != TILEC_PLUGIN_ABI_VERSION) {
    throw BackendError("cannot load " + where + ": it was built for plugin ABI version " +
                       std::to_string(version) + " but this tilec uses version " +
                       std::to_string(TILEC_PLUGIN_ABI_VERSION) +
                       "; rebuild the plugin against this tilec");
  }
  PluginRegistrar registrar(import_path, library_path);
  {
    // The transaction ends (and undoes a failed init) before the library is
    // closed: the undo drops functions whose code lives in the library.
    target::RegistrationTransaction transaction;
    int32_t status = init(&registrar);
    if (status == 0) {
      transaction.commit();
      library.release();  // the plugin's code stays mapped for the process lifetime
      return;
    }
  }
  throw BackendError("initializing " + where + " failed: " +
                     (registrar.error().empty()
                          ? "tilec_plugin_init returned " + std::string("an error")
                          : registrar.error()) +
                     "; nothing it registered was kept and it will be retried on next use");
}

}  // namespace

void register_builtin_module(const std::string& import_path, std::function<void()> initializer,
                             bool override) {
  check_import_path(import_path);
  if (!initializer) {
    throw BackendError("register_builtin_module: module '" + import_path + "' has no initializer");
  }
  auto& l = loader();
  std::optional<std::function<void()>> previous;
  {
    std::lock_guard lock(l.mutex);
    auto it = l.builtins.find(import_path);
    if (it != l.builtins.end()) {
      if (!override) {
        throw BackendError("built-in module '" + import_path +
                           "' is already registered; pass override = true to replace its "
                           "initializer");
      }
      previous = std::move(it->second);
      it->second = std::move(initializer);
    } else {
      l.builtins.emplace(import_path, std::move(initializer));
    }
  }
  target::journal_undo([import_path, previous = std::move(previous)]() mutable {
    auto& l = loader();
    std::lock_guard lock(l.mutex);
    if (previous)
      l.builtins[import_path] = std::move(*previous);
    else
      l.builtins.erase(import_path);
  });
}

void load_module(const std::string& import_path) {
  check_import_path(import_path);
  auto state = state_for(import_path);
  if (state->loaded.load(std::memory_order_acquire)) return;
  if (std::find(loading_stack.begin(), loading_stack.end(), import_path) != loading_stack.end()) {
    std::string chain;
    for (const auto& path : loading_stack) chain += path + " -> ";
    throw BackendError("import cycle while loading modules: " + chain + import_path +
                       "; a module must not (indirectly) load itself during initialization");
  }
  std::lock_guard load_lock(state->load_mutex);
  if (state->loaded.load(std::memory_order_acquire)) return;
  loading_stack.push_back(import_path);
  struct PopOnExit {
    ~PopOnExit() { loading_stack.pop_back(); }
  } pop_on_exit;
  if (auto builtin = find_builtin(import_path)) {
    run_builtin(import_path, *builtin);
  } else {
    std::string library_path;
    try {
      run_plugin(import_path, library_path);
    } catch (const std::exception& error) {
      record_plugin(import_path, library_path, error.what());
      throw;
    }
    record_plugin(import_path, library_path, "");
  }
  state->loaded.store(true, std::memory_order_release);
  // When this load ran inside an enclosing module's failing initialization, its
  // registrations are undone with that module's, so it must load again next time.
  target::journal_undo([state] { state->loaded.store(false, std::memory_order_release); });
}

bool is_module_loaded(const std::string& import_path) {
  auto& l = loader();
  std::lock_guard lock(l.mutex);
  auto it = l.states.find(import_path);
  return it != l.states.end() && it->second->loaded.load(std::memory_order_acquire);
}

std::vector<std::string> list_builtin_modules() {
  auto& l = loader();
  std::lock_guard lock(l.mutex);
  std::vector<std::string> names;
  for (const auto& [name, initializer] : l.builtins) names.push_back(name);
  return names;
}

std::vector<std::string> list_loaded_modules() {
  auto& l = loader();
  std::lock_guard lock(l.mutex);
  std::vector<std::string> names;
  for (const auto& [name, state] : l.states) {
    if (state->loaded.load(std::memory_order_acquire)) names.push_back(name);
  }
  return names;
}

std::vector<std::string> discover_plugins(const std::string& directory) {
  static constexpr std::string_view kPrefix = "libtilec_plugin_", kSuffix = ".so";
  std::vector<std::string> import_paths;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    std::string file = entry.path().filename().string();
    if (file.size() <= kPrefix.size() + kSuffix.size() || !file.starts_with(kPrefix) ||
        !file.ends_with(kSuffix)) {
      continue;
    }
    std::string_view name(file);
    name = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
    bool well_named = std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    std::error_code ignored;
    if (!well_named || !std::filesystem::is_regular_file(entry.path(), ignored)) continue;
    import_paths.push_back(file.substr(3, file.size() - 3 - kSuffix.size()));  // drop "lib", ".so"
  }
  std::sort(import_paths.begin(), import_paths.end());
  return import_paths;
}

std::vector<PluginStatus> load_plugins_from_search_path() {
  std::vector<std::string> import_paths;
  for (const auto& dir : plugin_search_path()) {
    for (auto& path : discover_plugins(dir)) {
      if (std::find(import_paths.begin(), import_paths.end(), path) == import_paths.end()) {
        import_paths.push_back(std::move(path));
      }
    }
  }
  for (const auto& path : import_paths) {
    try {
      load_module(path);
    } catch (const std::exception&) {
      // Recorded by load_module and undone by its transaction; the next plugin still loads.
    }
  }
  std::vector<PluginStatus> statuses;
  for (const auto& status : list_plugin_modules()) {
    if (std::find(import_paths.begin(), import_paths.end(), status.import_path) !=
        import_paths.end()) {
      statuses.push_back(status);
    }
  }
  return statuses;
}

std::vector<PluginStatus> list_plugin_modules() {
  std::vector<PluginStatus> statuses;
  {
    auto& l = loader();
    std::lock_guard lock(l.mutex);
    for (const auto& [path, status] : l.plugins) statuses.push_back(status);
  }
  // A plugin loaded inside an enclosing module that then failed was undone with it.
  for (auto& status : statuses) {
    status.loaded = is_module_loaded(status.import_path);
    if (!status.loaded && status.error.empty()) {
      status.error = "undone when the module that imported it failed; it loads again on next use";
    }
    if (status.loaded) status.error.clear();
  }
  return statuses;
}

std::vector<std::string> plugin_search_path() {
  std::vector<std::string> dirs;
  const char* value = std::getenv("TILEC_PLUGIN_PATH");
  if (!value) return dirs;
  std::string_view rest(value);
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    if (!dir.empty()) dirs.emplace_back(dir);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return dirs;
}

std::vector<std::string> plugin_file_names(const std::string& import_path) {
  std::string flat = import_path;
  std::replace(flat.begin(), flat.end(), '.', '_');
  std::replace(flat.begin(), flat.end(), '-', '_');
  return {"lib" + flat + ".so", import_path + ".so"};
}

}  // namespace tilec::backend
