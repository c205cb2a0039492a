#include "tuned_config.h"

#include <fmt/format.h>

#include <iostream>
#include <type_traits>
#include <variant>

namespace tilec::cli {

namespace {
std::map<std::string, std::string> defines_of(const KernelFileOptions& options) {
  std::map<std::string, std::string> values;
  for (const auto& d : options.defines) {
    auto [name, value] = ir::parse_define(d);
    values[name] = value;
  }
  return values;
}

std::string joined(const std::map<std::string, std::string>& config) {
  std::string text;
  for (const auto& [name, value] : config) text += (text.empty() ? "" : " ") + name + "=" + value;
  return text;
}
}  // namespace

std::optional<ir::AutotuneSpec> autotune_spec(const CompileOptions& options) {
  return ir::find_autotune_spec_in_file(options.file, defines_of(options), options.entry);
}

TuningKey tuning_key(const CompileOptions& options) {
  backend::BackendContext context = resolve_context(options);
  TuningKey key;
  key.source = read_source(options.file);
  // The tuned function, not --entry, so a file tuned with or without --entry is one entry.
  std::optional<ir::AutotuneSpec> spec = autotune_spec(options);
  key.entry = spec ? spec->function : options.entry;
  key.defines = defines_of(options);
  key.target = context.target().str();
  key.execution_backend = context.execution_backend().name;
  for (const auto& [name, value] : pass_config_of(options))
    key.pass_config[name] = std::visit(
        [](const auto& v) -> std::string {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
            return v;
          else
            return fmt::format("{}", v);
        },
        value);
  for (const auto& shape : options.shapes) {
    auto eq = shape.find('=');
    if (eq != std::string::npos) key.shapes[shape.substr(0, eq)] = shape.substr(eq + 1);
  }
  return key;
}

bool apply_tuned_config(CompileOptions& options, bool quiet) {
  std::optional<ir::AutotuneSpec> spec = autotune_spec(options);
  if (!spec || spec->configs.empty()) return false;
  std::map<std::string, std::string> given = defines_of(options);
  for (const auto& config : spec->configs)
    for (const auto& [name, value] : config)
      if (given.count(name)) return false;  // the user chose: -D wins over the tuner
  std::optional<TunedConfig> tuned = load_tuned_config(tuning_key(options));
  if (!tuned) {
    // Untuned: the first config, as a kernel whose tuned parameters default to None
    // needs some config to compile at all.
    const auto& first = spec->configs.front();
    for (const auto& [name, value] : first) options.defines.push_back(name + "=" + value);
    if (!quiet)
      std::cerr << fmt::format(
          "tilec: '{}' has {} autotune configs and none is tuned for this target yet; using the "
          "first, {}; `tilec tune {}` (same --target/-D/--shape) finds the best\n",
          spec->function, spec->configs.size(), joined(first), options.file);
    return true;
  }
  for (const auto& [name, value] : tuned->config) options.defines.push_back(name + "=" + value);
  if (!quiet)
    std::cerr << fmt::format("tilec: using the tuned config of '{}': {} (from `tilec tune`)\n",
                             spec->function, joined(tuned->config));
  return true;
}

}  // namespace tilec::cli
