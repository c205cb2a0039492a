// `tilec backends [--json]`: every registered backend module with its target
// kinds, pipelines (and their passes), device and host codegens, hooks,
// callbacks and execution backends in `auto` order with their availability
// here; then the host codegen registry, the modules known to the loader, and the
// plugins found in TILEC_PLUGIN_PATH: loaded ones with their path, failed ones with
// the cause.
#include "command.h"

#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"
#include "tilec/engine/initialize.h"
#include "tilec/exec/execution_backend.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace tilec::cli {
namespace {

using nlohmann::json;

json backend_json(const backend::BackendModule& module) {
  json pipelines = json::object(), device = json::object(), host = json::object(),
       hooks = json::object();
  for (const auto& [kind, pipeline] : module.pipelines) {
    pipelines[kind] = {{"name", pipeline.name()}, {"passes", pipeline.pass_names()}};
  }
  for (const auto& [kind, codegen] : module.device_codegens) {
    device[kind] = {{"name", codegen.name},
                    {"build", static_cast<bool>(codegen.build)},
                    {"build_without_compile", static_cast<bool>(codegen.build_without_compile)}};
  }
  for (const auto& [kind, codegen] : module.host_codegens) host[kind] = codegen.name;
  for (const auto& [kind, list] : module.host_codegen_hooks) {
    for (const auto& hook : list) hooks[kind].push_back(hook.name);
  }
  json callbacks = json::array();
  for (const auto& [name, callback] : module.callbacks)
    callbacks.push_back(module.name + "." + name);
  json execution = json::array();
  for (const auto& spec : module.execution_backends) {
    bool available = spec.available();
    // Why not, in the shared implementation's words (a module's own has none to give).
    std::string reason;
    if (!available) {
      try {
        reason = exec::get_execution_backend(spec.name)->unavailable_reason();
      } catch (const exec::ExecError&) {
      }
    }
    execution.push_back({{"name", spec.name},
                         {"available", available},
                         {"unavailable_reason", reason},
                         {"enable_host_codegen", spec.enable_host_codegen},
                         {"enable_device_compile", spec.enable_device_compile},
                         {"target_predicate", spec.supports_target.has_value()}});
  }
  return {{"name", module.name},
          {"target_kinds", module.target_kinds},
          {"supports_target", module.supports_target.has_value()},
          {"pipelines", pipelines},
          {"device_codegens", device},
          {"host_codegens", host},
          {"host_codegen_hooks", hooks},
          {"callbacks", callbacks},
          {"execution_backends", execution}};
}

json by_kind(const std::vector<std::pair<std::string, std::vector<std::string>>>& listing) {
  json out = json::object();
  for (const auto& [kind, names] : listing) out[kind] = names;
  return out;
}

json plugins_json() {
  json plugins = json::array();
  for (const auto& plugin : backend::list_plugin_modules()) {
    json entry{{"import_path", plugin.import_path},
               {"path", plugin.library_path},
               {"status", plugin.loaded ? "loaded" : "failed"}};
    if (!plugin.loaded) entry["error"] = plugin.error;
    plugins.push_back(std::move(entry));
  }
  return plugins;
}

json registry_json() {
  json backends = json::array();
  for (const auto& module : backend::list_backends()) backends.push_back(backend_json(*module));
  return {{"backends", backends},
          {"host_codegens", by_kind(backend::list_host_codegens())},
          {"host_codegen_hooks", by_kind(backend::list_host_codegen_hooks())},
          {"lazy_host_codegen_imports", by_kind(backend::list_lazy_host_codegen_imports())},
          {"builtin_modules", backend::list_builtin_modules()},
          {"loaded_modules", backend::list_loaded_modules()},
          {"plugin_search_path", backend::plugin_search_path()},
          {"plugins", plugins_json()}};
}

std::string joined(const json& names) {
  std::vector<std::string> list = names.get<std::vector<std::string>>();
  return list.empty() ? "none" : fmt::format("{}", fmt::join(list, ", "));
}

void print_text(const json& registry) {
  if (registry["backends"].empty()) std::cout << "No backends are registered.\n";
  for (const auto& module : registry["backends"]) {
    std::cout << fmt::format("{}  (target kinds: {}{})\n", module["name"].get<std::string>(),
                             joined(module["target_kinds"]),
                             module["supports_target"].get<bool>() ? "; with supports_target" : "");
    for (const auto& [kind, pipeline] : module["pipelines"].items()) {
      std::cout << fmt::format("  pipeline[{}]: {} ({})\n", kind,
                               pipeline["name"].get<std::string>(), joined(pipeline["passes"]));
    }
    for (const auto& [kind, codegen] : module["device_codegens"].items()) {
      std::string modes = codegen["build"].get<bool>() ? "compile" : "";
      if (codegen["build_without_compile"].get<bool>())
        modes += modes.empty() ? "source" : ", source";
      std::cout << fmt::format("  device codegen[{}]: {} ({})\n", kind,
                               codegen["name"].get<std::string>(), modes);
    }
    for (const auto& [kind, name] : module["host_codegens"].items()) {
      std::cout << fmt::format("  host codegen[{}]: {}\n", kind, name.get<std::string>());
    }
    for (const auto& [kind, names] : module["host_codegen_hooks"].items()) {
      std::cout << fmt::format("  host codegen hooks[{}]: {}\n", kind, joined(names));
    }
    if (!module["callbacks"].empty()) {
      std::cout << fmt::format("  callbacks: {}\n", joined(module["callbacks"]));
    }
    std::cout << "  execution backends (auto order):\n";
    for (const auto& spec : module["execution_backends"]) {
      std::cout << fmt::format("    {:<12} {:<13} host codegen: {}, device compile: {}\n",
                               spec["name"].get<std::string>(),
                               spec["available"].get<bool>() ? "available" : "not available",
                               spec["enable_host_codegen"].get<bool>() ? "yes" : "no",
                               spec["enable_device_compile"].get<bool>() ? "yes" : "no");
      if (auto reason = spec["unavailable_reason"].get<std::string>(); !reason.empty()) {
        std::cout << "      why: " << reason << "\n";
      }
    }
  }
  std::cout << "\nHost codegens by host kind:\n";
  for (const auto& [kind, names] : registry["host_codegens"].items()) {
    std::cout << fmt::format("  {}: {}\n", kind, joined(names));
  }
  for (const auto& [kind, paths] : registry["lazy_host_codegen_imports"].items()) {
    std::cout << fmt::format("  {}: loads {} on first use\n", kind, joined(paths));
  }
  std::cout << fmt::format("\nBuilt-in modules: {}\nLoaded modules: {}\n",
                           joined(registry["builtin_modules"]), joined(registry["loaded_modules"]));
  std::cout << fmt::format("\nPlugin modules (TILEC_PLUGIN_PATH: {}):\n",
                           joined(registry["plugin_search_path"]));
  if (registry["plugins"].empty()) {
    std::cout << "  none (a directory in TILEC_PLUGIN_PATH holding libtilec_plugin_<name>.so adds "
                 "one)\n";
  }
  for (const auto& plugin : registry["plugins"]) {
    std::string path = plugin["path"].get<std::string>();
    if (plugin["status"] == "loaded") {
      std::cout << fmt::format("  {}  loaded from {}\n", plugin["import_path"].get<std::string>(),
                               path);
    } else {
      std::cout << fmt::format("  {}  FAILED{}: {}\n", plugin["import_path"].get<std::string>(),
                               path.empty() ? "" : " (" + path + ")",
                               plugin["error"].get<std::string>());
    }
  }
}

TILEC_REGISTER_COMMAND(Command{
    "backends",
    [](CLI::App& sub) -> std::function<int()> {
      auto as_json = std::make_shared<bool>(false);
      sub.add_flag("--json", *as_json, "print one JSON object instead of text");
      return [as_json] {
        tilec::initialize();
        json registry = registry_json();
        if (*as_json) {
          std::cout << registry.dump(2) << "\n";
        } else {
          print_text(registry);
        }
        return kExitOk;
      };
    },
    "list registered backend modules, their components and execution backends"});

}  // namespace
}  // namespace tilec::cli
