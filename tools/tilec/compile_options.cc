#include "compile_options.h"

#include "error_report.h"
#include "tuned_config.h"

#include "tilec/backend/module_loader.h"
#include "tilec/exec/emulator.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/check.h"
#include "tilec/transform/bounds_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>

namespace tilec::cli {

void add_kernel_file_options(CLI::App& sub, KernelFileOptions& options) {
  sub.add_option("file", options.file, "kernel file (.py, TileLang DSL)")->required();
  sub.add_option("-D,--define", options.defines,
                 "set a module constant or factory parameter: -D NAME=VALUE (repeatable)");
  sub.add_option("--entry", options.entry,
                 "the kernel or factory to compile when the file defines several");
}

ir::IRModule load_kernel_file(const KernelFileOptions& options) {
  set_current_kernel_file(options.file);
  std::map<std::string, std::string> values;
  for (const auto& d : options.defines) {
    auto [name, value] = ir::parse_define(d);
    values[name] = value;
  }
  return ir::parse_kernel_file(options.file, values, options.entry);
}

std::string read_source(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream source;
  source << in.rdbuf();
  return source.str();
}

int report_source_errors(const std::function<int()>& body) {
  try {
    return body();
  } catch (const ir::IRError& e) {
    std::cerr << format_cli_error(e) << "\n";
    return kExitUsage;
  }
}

void add_compile_options(CLI::App& sub, CompileOptions& options) {
  sub.add_option("file", options.file, "kernel file (.py, TileLang DSL)")->required();
  // Only examples that work on any machine (a CPU name would not: GCC 12 knows no znver4).
  sub.add_option("--target", options.target,
                 "target: auto (the best for this machine; `tilec resolve` shows it), or a kind "
                 "with options, e.g. \"c\", \"llvm\" or \"c -mcpu=native\"; `tilec targets` "
                 "lists the kinds and their options")
      ->capture_default_str();
  sub.add_option("--target-host", options.target_host, "host target (default: derived)");
  sub.add_option("--execution-backend", options.execution_backend, "execution backend, e.g. native")
      ->capture_default_str();
  sub.add_flag("--bounds-check", options.bounds_check,
               "compile every tensor, shared and fragment access with an index check; the first "
               "index outside its shape is an error naming file:line:col, tensor, index and "
               "shape (pass config tilec.bounds_check; cpu targets, and cuda: on the emulator the "
               "same error, on a GPU printed by the device and trapped)");
  sub.add_flag("--racecheck", options.race_check,
               "with --execution-backend emulator: report a shared-memory race (two threads' "
               "conflicting accesses with no barrier between them) with both threads and lines "
               "(pass config tilec.emulator.racecheck)");
  sub.add_option("-D,--define", options.defines,
                 "set a module constant or factory parameter: -D NAME=VALUE (repeatable)");
  sub.add_option("--entry", options.entry,
                 "the kernel or factory to compile when the file defines several");
}

void require_functions(const ir::IRModule& module, const std::string& file) {
  if (module.size() == 0)
    throw EngineError(file +
                      ": the file defines no kernel function; a kernel is a function decorated "
                      "with @T.prim_func (see examples/vector_add.py)");
}

backend::BackendContext resolve_context(const CompileOptions& options) {
  initialize();
  std::optional<std::string> host;
  if (!options.target_host.empty()) host = options.target_host;
  return backend::create_backend_context(options.target, host, options.execution_backend);
}

void warn_about_failed_plugins() {
  static std::once_flag warned;  // once per process: tune and bench compile many times
  std::call_once(warned, [] {
    initialize();
    std::vector<std::string> failed;
    for (const auto& plugin : backend::list_plugin_modules()) {
      if (plugin.loaded) continue;
      // The loader's message names the plugin, its file and the cause.
      failed.push_back(plugin.error.substr(0, plugin.error.find('\n')));
    }
    if (failed.empty()) return;
    std::cerr << fmt::format(
        "tilec: warning: {} on TILEC_PLUGIN_PATH failed to load (its backends are "
        "unavailable): {}; `tilec backends` lists every plugin\n",
        failed.size() == 1 ? "a plugin" : std::to_string(failed.size()) + " plugins",
        fmt::join(failed, "; "));
  });
}

PassConfig pass_config_of(const CompileOptions& options) {
  PassConfig pass_config;
  if (options.bounds_check) pass_config[transform::kBoundsCheckConfigKey] = true;
  if (options.race_check) pass_config[exec::kEmulatorRaceCheckConfigKey] = true;
  return pass_config;
}

CompiledFile compile_kernel_file(const CompileOptions& given) {
  warn_about_failed_plugins();
  CompileOptions options = given;
  if (options.use_tuned_config) apply_tuned_config(options, options.quiet);
  ir::IRModule mod = load_kernel_file(options);
  require_functions(mod, options.file);
  // Checked here too (compile() checks again) so diagnostics show the source line.
  ir::check_module_or_throw(mod, options.file, read_source(options.file));
  std::optional<std::string> host;
  if (!options.target_host.empty()) host = options.target_host;
  PassConfig pass_config = pass_config_of(options);
  std::optional<transform::ScopedPassContext> instruments;
  if (!options.instruments.empty()) {
    const transform::PassContext& outer = transform::PassContext::current();
    auto all = outer.instruments();
    all.insert(all.end(), options.instruments.begin(), options.instruments.end());
    instruments.emplace(transform::PassContext(outer.config(), std::move(all)));
  }
  Kernel kernel = compile(mod, options.target, host, options.execution_backend, pass_config);
  return {std::move(mod), std::move(kernel)};
}

}  // namespace tilec::cli
