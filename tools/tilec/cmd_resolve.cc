// `tilec resolve [--target T] [--target-host H] [--execution-backend E] [--json]`:
// runs create_backend_context and prints the resolved context (canonical target
// strings); resolution errors reach main(), which prints them with exit status 2.
#include "command.h"

#include "tilec/backend/module.h"
#include "tilec/engine/initialize.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <optional>

namespace tilec::cli {
namespace {

struct ResolveOptions {
  std::string target = "auto";
  std::optional<std::string> target_host;
  std::string execution_backend = "auto";
  bool as_json = false;
};

int run_resolve(const ResolveOptions& options) {
  tilec::initialize();
  auto context = backend::create_backend_context(options.target, options.target_host,
                                                 options.execution_backend);
  const auto& spec = context.execution_backend();
  if (options.as_json) {
    nlohmann::json out{{"backend", context.name()},
                       {"target", context.target().str()},
                       {"target_host", context.target_host().str()},
                       {"execution_backend", spec.name}};
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format(
      "backend:           {}\ntarget:            {}\ntarget host:       {}\n"
      "execution backend: {} (host codegen: {}, device compile: {})\npipeline:          {}\n",
      context.name(), context.target().str(), context.target_host().str(), spec.name,
      spec.enable_host_codegen ? "yes" : "no", spec.enable_device_compile ? "yes" : "no",
      context.module().get_pipeline(context.target()).name());
  return kExitOk;
}

TILEC_REGISTER_COMMAND(Command{
    "resolve",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<ResolveOptions>();
      sub.add_option("--target", options->target, "target string or JSON, or \"auto\"")
          ->capture_default_str();
      sub.add_option("--target-host", options->target_host,
                     "host target (default: the target's host, else llvm or c)");
      sub.add_option("--execution-backend", options->execution_backend,
                     "execution backend name, or \"auto\"")
          ->capture_default_str();
      sub.add_flag("--json", options->as_json,
                   "print {backend, target, target_host, execution_backend} as JSON");
      return [options] { return run_resolve(*options); };
    },
    "resolve a target, host and execution backend into a backend context"});

}  // namespace
}  // namespace tilec::cli
