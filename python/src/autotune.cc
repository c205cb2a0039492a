// The C++ half of tilec.autotune: the configs a kernel's source declares
// (tilec/frontend/autotune.h), one config measured (tilec/engine/tuning.h: checked
// against the interpreter, timed with do_bench) and the tuned-config cache that
// `tilec tune` and `tilec run` share (tilec/engine/tuning_cache.h).
#include "bindings.h"

#include "tilec/engine/kernel.h"
#include "tilec/engine/tuning.h"
#include "tilec/engine/tuning_cache.h"
#include "tilec/frontend/autotune.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace tilec::python {

void bind_autotune(nb::module_& m) {
  m.def(
      "autotune_spec",
      [](const std::string& source, const std::string& filename,
         std::map<std::string, std::string> defines, const std::string& entry) -> nb::object {
        auto spec = ir::find_autotune_spec(
            source, ir::ParseOptions{.filename = filename, .defines = std::move(defines)}, entry);
        if (!spec) return nb::none();
        nb::dict out;
        out["function"] = spec->function;
        out["configs"] = spec->configs;
        out["warmup"] = spec->warmup;
        out["rep"] = spec->rep;
        return out;
      },
      nb::arg("source"), nb::arg("filename"), nb::arg("defines"), nb::arg("entry") = "",
      "The autotune configs the source declares (@autotune / AutoTuner.from_kernel), as "
      "{function, configs: [{name: value text}], warmup, rep}; None when it declares none.");

  m.def(
      "measure_config",
      [](const ir::IRModule& mod, const Kernel& kernel, bool check, int warmup, int rep,
         uint64_t seed, std::map<std::string, int64_t> dims) {
        ConfigMeasurement result;
        {
          nb::gil_scoped_release release;
          result = measure_config(
              mod, kernel, check, BenchOptions{warmup, rep},
              [&](const ir::PrimFunc& func) { return ir::make_random_args(func, dims, seed); });
        }
        nb::dict out;
        out["status"] = result.status;
        out["error"] = result.error;
        out["max_abs_err"] = result.max_abs_err;
        if (result.timing) {
          out["median_ms"] = result.timing->median_ms;
          out["min_ms"] = result.timing->min_ms;
          out["max_ms"] = result.timing->max_ms;
          out["spread"] = result.timing->spread();
          out["clock"] = result.timing->clock;
        }
        return out;
      },
      nb::arg("module"), nb::arg("kernel"), nb::arg("check"), nb::arg("warmup"), nb::arg("rep"),
      nb::arg("seed") = 0, nb::arg("dims") = std::map<std::string, int64_t>{});

  auto key_of = [](const std::string& source, const std::string& entry,
                   std::map<std::string, std::string> defines, const std::string& target,
                   const std::string& execution_backend,
                   std::map<std::string, std::string> pass_config) {
    TuningKey key;
    key.source = source;
    key.entry = entry;
    key.defines = std::move(defines);
    key.target = target;
    key.execution_backend = execution_backend;
    key.pass_config = std::move(pass_config);  // as text: True -> "true", as `tilec tune` keys it
    return key;
  };
  m.def(
      "load_tuned_config",
      [key_of](const std::string& source, const std::string& entry,
               std::map<std::string, std::string> defines, const std::string& target,
               const std::string& execution_backend, std::map<std::string, std::string> pass_config)
          -> std::optional<std::map<std::string, std::string>> {
        auto tuned = load_tuned_config(key_of(source, entry, std::move(defines), target,
                                              execution_backend, std::move(pass_config)));
        if (!tuned) return std::nullopt;
        return tuned->config;
      },
      nb::arg("source"), nb::arg("entry"), nb::arg("defines"), nb::arg("target"),
      nb::arg("execution_backend"), nb::arg("pass_config") = std::map<std::string, std::string>{});
  m.def(
      "store_tuned_config",
      [key_of](const std::string& source, const std::string& entry,
               std::map<std::string, std::string> defines, const std::string& target,
               const std::string& execution_backend, std::map<std::string, std::string> config,
               const std::string& table_json, std::map<std::string, std::string> pass_config) {
        return store_tuned_config(key_of(source, entry, std::move(defines), target,
                                         execution_backend, std::move(pass_config)),
                                  TunedConfig{std::move(config), table_json});
      },
      nb::arg("source"), nb::arg("entry"), nb::arg("defines"), nb::arg("target"),
      nb::arg("execution_backend"), nb::arg("config"), nb::arg("table_json"),
      nb::arg("pass_config") = std::map<std::string, std::string>{});
}

}  // namespace tilec::python
