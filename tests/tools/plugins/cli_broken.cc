// A backend plugin whose initializer fails after registering a target kind, a
// pass-config key, a target normalizer and a backend: tilec::initialize() must
// record the failure with its cause, undo every one of those registrations and
// still load the other plugins of TILEC_PLUGIN_PATH (libtilec_plugin_cli_broken.so).
#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"
#include "tilec/target/detect.h"
#include "tilec/target/target_kind.h"
#include "tilec/transform/pass_context.h"

#include <stdexcept>

namespace {

std::optional<tilec::target::Target> leave_alone(const tilec::target::Target&) {
  return std::nullopt;
}

void init_cli_broken(tilec::backend::PluginRegistrar&) {
  using namespace tilec;
  target::register_target_kind({"clibroken", {}, {"clibroken"}, "never survives its plugin"});
  transform::register_pass_config_key("cli_broken.unroll", transform::PassConfigType::kBool, false,
                                      "never survives its plugin");
  target::register_target_normalizer("cli_broken_normalizer", leave_alone);
  backend::register_backend(backend::BackendModule{
      .name = "cli_broken",
      .target_kinds = {"clibroken"},
      .pipelines = {{"clibroken", transform::PassPipeline("cli_broken_pipeline", {})}},
      .device_codegens = {{"clibroken",
                           {"cli_broken_device",
                            {},
                            [](const ir::IRModule&, const target::Target&) {
                              return backend::CodeArtifact{"c", "", {}, {}, {}};
                            }}}},
      .execution_backends = {{"source", {}, std::nullopt, false, false}},
  });
  throw std::runtime_error("cli_broken cannot find its device library");
}

}  // namespace

TILEC_DEFINE_PLUGIN(init_cli_broken)
