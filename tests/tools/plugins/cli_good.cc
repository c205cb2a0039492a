// A backend plugin written as an out-of-tree author would, found by
// tilec::initialize() in a TILEC_PLUGIN_PATH directory (libtilec_plugin_cli_good.so):
// its own target kind `cligood`, the cpu pipeline and C device codegen, the standard
// `c` host codegen (declared by the built-in cpu backend too) and the `native`
// execution backend, so kernels compile and run through it from the CLI.
#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cpu/codegen_c_device.h"
#include "tilec/cpu/pipeline.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/target/target_kind.h"

namespace {

bool native_available() {
  return tilec::exec::is_execution_backend_available("native");
}

void init_cli_good(tilec::backend::PluginRegistrar& registrar) {
  using namespace tilec;
  target::register_target_kind(
      {"cligood",
       {{"variant", target::AttrType::kString, std::string("plain"), "a plugin-owned attribute"}},
       {"cligood", "cpu"},
       "CLI test plugin kind: C kernels through a plugin backend"});
  // A kind no backend owns: registered, but `tilec targets` must not list it as supported.
  target::register_target_kind({"cliorphan", {}, {"cliorphan"}, "a kind without a backend"});
  backend::BackendModule module{
      .name = "cli_good",
      .target_kinds = {"cligood"},
      .pipelines = {{"cligood", cpu::make_cpu_pipeline()}},
      .device_codegens = {{"cligood", cpu::make_c_device_codegen()}},
      .execution_backends = {{"native", native_available, std::nullopt, true, false}},
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
  };
  module.callbacks["loaded_from"] = [path = registrar.library_path()](const backend::ValueList&) {
    return backend::Value(path);
  };
  backend::register_backend(std::move(module));
}

}  // namespace

TILEC_DEFINE_PLUGIN(init_cli_good)
