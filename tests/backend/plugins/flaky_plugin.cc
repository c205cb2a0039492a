// A plugin whose initializer registers several components and then throws while
// TILEC_TEST_FLAKY_FAIL=1: the loader must undo all of them and retry later.
#include "plugin_kinds.h"
#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace {

void init_flaky_plugin(tilec::backend::PluginRegistrar&) {
  using namespace tilec;
  testing::ensure_plugin_kind("flaky_dev");
  testing::ensure_plugin_kind("flaky_host");
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
