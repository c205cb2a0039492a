// A plugin whose initializer registers several components (target kinds, a
// pass-config key, a target detector and normalizer, a global function, a host
// codegen, a backend) and then throws while TILEC_TEST_FLAKY_FAIL=1: the loader
// must undo all of them and retry later.
#include "plugin_kinds.h"
#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"
#include "tilec/target/detect.h"
#include "tilec/transform/pass_context.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace {

std::optional<tilec::target::Target> detect_nothing() {
  return std::nullopt;
}

std::optional<tilec::target::Target> normalize_nothing(const tilec::target::Target&) {
  return std::nullopt;
}

void init_flaky_plugin(tilec::backend::PluginRegistrar&) {
  using namespace tilec;
  testing::ensure_plugin_kind("flaky_dev");
  testing::ensure_plugin_kind("flaky_host");
  transform::register_pass_config_key("flaky.unroll", transform::PassConfigType::kInt, int64_t{4},
                                      "flaky plugin's key");
  target::register_target_detector("flaky_detector", detect_nothing);
  target::register_target_normalizer("flaky_normalizer", normalize_nothing);
  backend::register_global_func("flaky.answer",
                                [](const backend::ValueList&) { return backend::Value(42); });
  backend::register_host_codegen("flaky_host",
                                 {"flaky_host_codegen",
                                  [](const ir::IRModule&, const target::Target&) {
                                    return backend::CodeArtifact{"c", "// flaky host", {}, {}, {}};
                                  },
                                  std::nullopt});
  backend::register_backend(backend::BackendModule{
      .name = "flaky_backend",
      .target_kinds = {"flaky_dev"},
      .pipelines = {{"flaky_dev", transform::PassPipeline("flaky_pipeline", {})}},
      .device_codegens = {{"flaky_dev",
                           {"flaky_device",
                            {},
                            [](const ir::IRModule&, const target::Target&) {
                              return backend::CodeArtifact{"src", "// flaky", {}, {}, {}};
                            }}}},
      .execution_backends = {{"flaky_exec", {}, std::nullopt, false, false}},
  });
  const char* fail = std::getenv("TILEC_TEST_FLAKY_FAIL");
  if (fail && std::strcmp(fail, "1") == 0) {
    throw std::runtime_error("flaky plugin init exploded on purpose");
  }
}

}  // namespace

TILEC_DEFINE_PLUGIN(init_flaky_plugin)
