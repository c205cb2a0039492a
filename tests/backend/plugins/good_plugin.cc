// A well-formed plugin: registers a backend for kind "plugin_dev" and a host
// codegen for host kind "plugin_host", as an out-of-tree backend would.
#include "plugin_kinds.h"
#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"

namespace {

tilec::backend::CodeArtifact artifact(const char* format, const std::string& source) {
  return {format, source, {}, {}, {}};
}

void init_good_plugin(tilec::backend::PluginRegistrar& registrar) {
  using namespace tilec;
  testing::ensure_plugin_kind("plugin_dev");
  testing::ensure_plugin_kind("plugin_host");
  backend::register_host_codegen(
      "plugin_host", {"plugin_host_codegen",
                      [](const ir::IRModule& mod, const target::Target& host) {
                        return artifact("c", "// plugin host code for " + host.str() + ", " +
                                                 std::to_string(mod.size()) + " functions");
                      },
                      std::nullopt});
  transform::Pass mark{"plugin_mark", [](const ir::IRModule& mod, const transform::PassInfo&) {
                         return mod.with_attr("lowered_by", std::string("plugin"));
                       }};
  backend::BackendModule module{
      .name = "plugin_backend",
      .target_kinds = {"plugin_dev"},
      .pipelines = {{"plugin_dev", transform::PassPipeline("plugin_pipeline", {mark})}},
      .device_codegens = {{"plugin_dev",
                           {"plugin_device_codegen",
                            {},
                            [](const ir::IRModule&, const target::Target& target) {
                              return artifact("plugin_src", "// device code for " + target.str());
                            }}}},
      .execution_backends = {{"plugin_exec", {}, std::nullopt, false, false}},
  };
  module.callbacks["loaded_from"] = [path = registrar.library_path()](const backend::ValueList&) {
    return backend::Value(path);
  };
  backend::register_backend(std::move(module));
}

}  // namespace

TILEC_DEFINE_PLUGIN(init_good_plugin)
