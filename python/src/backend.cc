// tilec.backend.module: BackendModule (a manifest: built from Python with the seed's
// fields, validated on construction as the seed's __post_init__ does, immutable),
// BackendContext (immutable: read-only properties), and the backend registry. Calls
// that may run registered components release the GIL, so components written in Python
// and lazily imported modules can run on any thread. What they hand out keeps its
// Python identity (registered_objects.h): get_backend(n) is get_backend(n) is
// register_backend(b) for the b first registered, and is context.module.
#include "bindings.h"
#include "conversions.h"
#include "registered_objects.h"

#include "tilec/backend/module.h"
#include "tilec/engine/initialize.h"
#include "tilec/target/detect.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

namespace tilec::python {

namespace {

using backend::BackendContext;
using backend::BackendModule;
using backend::BackendModulePtr;

template <class T>
std::map<std::string, T> typed_map(const nb::dict& dict, const char* field) {
  std::map<std::string, T> out;
  for (auto [key, value] : dict) {
    if (!nb::isinstance<T>(value))
      throw nb::type_error((std::string("BackendModule.") + field + "[" +
                            nb::cast<std::string>(nb::str(key)) + "] must be a tilec " +
                            nb::cast<std::string>(nb::type_name(nb::type<T>())) + ", not " +
                            nb::cast<std::string>(nb::type_name(value.type())))
                               .c_str());
    out.emplace(nb::cast<std::string>(key), nb::cast<T>(value));
  }
  return out;
}

template <class T>
std::vector<T> typed_list(nb::handle seq, const char* field) {
  std::vector<T> out;
  for (nb::handle value : seq) {
    if (!nb::isinstance<T>(value))
      throw nb::type_error((std::string("BackendModule.") + field + " holds " +
                            nb::cast<std::string>(nb::type_name(value.type())) + ", not a tilec " +
                            nb::cast<std::string>(nb::type_name(nb::type<T>())))
                               .c_str());
    out.push_back(nb::cast<T>(value));
  }
  return out;
}

BackendModule manifest_from_python(std::string name, nb::handle target_kinds, nb::dict pipelines,
                                   nb::dict device_codegens, nb::handle execution_backends,
                                   nb::handle supports_target, nb::dict host_codegens,
                                   nb::dict host_codegen_hooks, nb::dict callbacks) {
  BackendModule module;
  module.name = name;
  for (nb::handle kind : target_kinds) module.target_kinds.push_back(nb::cast<std::string>(kind));
  module.pipelines = typed_map<transform::PassPipeline>(pipelines, "pipelines");
  module.device_codegens = typed_map<backend::DeviceCodegen>(device_codegens, "device_codegens");
  module.execution_backends =
      typed_list<backend::ExecutionBackendSpec>(execution_backends, "execution_backends");
  if (!supports_target.is_none())
    module.supports_target =
        predicate_from_python(supports_target, "backend '" + name + "' supports_target");
  module.host_codegens = typed_map<backend::HostCodegen>(host_codegens, "host_codegens");
  for (auto [kind, hooks] : host_codegen_hooks)
    module.host_codegen_hooks[nb::cast<std::string>(kind)] =
        typed_list<backend::HostCodegenHook>(hooks, "host_codegen_hooks");
  for (auto [callback, fn] : callbacks) {
    std::string callback_name = nb::cast<std::string>(callback);
    module.callbacks[callback_name] =
        global_func_from_python(fn, "callback '" + callback_name + "' of backend '" + name + "'");
  }
  return module;
}

// A manifest's components as their kept Python objects.
template <class Item, class Convert>
nb::tuple tuple_of(const std::vector<Item>& items, Convert convert) {
  nb::list out;
  for (const auto& item : items) out.append(convert(item, nb::handle()));
  return nb::tuple(out);
}
template <class Item, class Convert>
nb::dict dict_of(const std::map<std::string, Item>& items, Convert convert) {
  nb::dict out;
  for (const auto& [key, item] : items) out[nb::cast(key)] = convert(item);
  return out;
}

}  // namespace

void bind_backend(nb::module_& m) {
  nb::class_<PyBackendModule>(m, "BackendModule")
      .def(
          "__init__",
          [](PyBackendModule* self, std::string name, nb::handle target_kinds, nb::dict pipelines,
             nb::dict device_codegens, nb::handle execution_backends, nb::handle supports_target,
             nb::dict host_codegens, nb::dict host_codegen_hooks, nb::dict callbacks) {
            BackendModule module = manifest_from_python(
                std::move(name), target_kinds, pipelines, device_codegens, execution_backends,
                supports_target, host_codegens, host_codegen_hooks, callbacks);
            module.validate();
            new (self) PyBackendModule{std::make_shared<const BackendModule>(std::move(module))};
          },
          nb::arg("name"), nb::arg("target_kinds"), nb::arg("pipelines"),
          nb::arg("device_codegens"), nb::arg("execution_backends"),
          nb::arg("supports_target") = nb::none(), nb::arg("host_codegens") = nb::dict(),
          nb::arg("host_codegen_hooks") = nb::dict(), nb::arg("callbacks") = nb::dict())
      .def_prop_ro("name", [](const PyBackendModule& m) { return m.module->name; })
      .def_prop_ro(
          "target_kinds",
          [](const PyBackendModule& m) { return nb::tuple(nb::cast(m.module->target_kinds)); })
      .def_prop_ro("pipelines", [](const PyBackendModule& m) { return m.module->pipelines; })
      .def_prop_ro("device_codegens",
                   [](const PyBackendModule& m) {
                     return dict_of(m.module->device_codegens, python_device_codegen);
                   })
      .def_prop_ro("execution_backends",
                   [](const PyBackendModule& m) {
                     return tuple_of(m.module->execution_backends, python_execution_backend);
                   })
      .def_prop_ro("supports_target",
                   [](const PyBackendModule& m) {
                     return m.module->supports_target ? python_predicate(*m.module->supports_target)
                                                      : nb::none();
                   })
      .def_prop_ro("host_codegens",
                   [](const PyBackendModule& m) {
                     return dict_of(m.module->host_codegens, [](const backend::HostCodegen& c) {
                       return python_host_codegen(c);
                     });
                   })
      .def_prop_ro("host_codegen_hooks",
                   [](const PyBackendModule& m) {
                     nb::dict out;
                     for (const auto& [kind, hooks] : m.module->host_codegen_hooks)
                       out[nb::cast(kind)] = tuple_of(hooks, python_host_codegen_hook);
                     return out;
                   })
      .def_prop_ro("callbacks",
                   [](const PyBackendModule& m) {
                     nb::dict out;
                     for (const auto& [name, fn] : m.module->callbacks)
                       out[nb::cast(name)] = python_global_func(fn);
                     return out;
                   })
      .def("description", [](const PyBackendModule& m) { return m.module->description(); })
      .def(
          "matches",
          [](const PyBackendModule& m, const target::Target& t) { return m.module->matches(t); },
          nb::arg("target"), nb::call_guard<nb::gil_scoped_release>())
      .def(
          "get_pipeline",
          [](const PyBackendModule& m, const target::Target& t) {
            return m.module->get_pipeline(t);
          },
          nb::arg("target"), nb::call_guard<nb::gil_scoped_release>())
      .def(
          "lower",
          [](const PyBackendModule& m, const ir::IRModule& mod, const target::Target& t) {
            return m.module->lower(mod, t);
          },
          nb::arg("mod"), nb::arg("target"), nb::call_guard<nb::gil_scoped_release>())
      .def(
          "get_device_codegen",
          [](const PyBackendModule& m, const target::Target& t) {
            return python_device_codegen(m.module->get_device_codegen(t));
          },
          nb::arg("target"))
      .def(
          "codegen_device",
          [](const PyBackendModule& m, const ir::IRModule& mod, const target::Target& t,
             bool compile_device) { return m.module->codegen_device(mod, t, compile_device); },
          nb::arg("mod"), nb::arg("target"), nb::kw_only(), nb::arg("compile_device"),
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "get_host_codegen",
          [](const PyBackendModule& m, const target::Target& h) {
            backend::HostCodegen codegen;
            {
              nb::gil_scoped_release release;
              codegen = m.module->get_host_codegen(h);
            }
            return python_host_codegen(codegen);
          },
          nb::arg("target_host"))
      .def(
          "codegen_host",
          [](const PyBackendModule& m, const ir::IRModule& mod, const target::Target& h) {
            return m.module->codegen_host(mod, h);
          },
          nb::arg("mod"), nb::arg("target_host"), nb::call_guard<nb::gil_scoped_release>())
      .def(
          "preprocess_host_codegen",
          [](const PyBackendModule& m, const ir::IRModule& mod, const target::Target& h,
             const target::Target& t) { return m.module->preprocess_host_codegen(mod, h, t); },
          nb::arg("mod"), nb::arg("target_host"), nb::arg("target"),
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "allowed_execution_backends",
          [](const PyBackendModule& m, const target::Target& t, bool include_unavailable) {
            return m.module->allowed_execution_backends(t, include_unavailable);
          },
          nb::arg("target"), nb::kw_only(), nb::arg("include_unavailable") = true,
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "resolve_execution_backend",
          [](const PyBackendModule& m, std::optional<std::string> requested,
             const target::Target& t) {
            backend::ExecutionBackendSpec spec;
            {
              nb::gil_scoped_release release;
              spec = m.module->resolve_execution_backend(requested.value_or("auto"), t);
            }
            return python_execution_backend(spec);
          },
          nb::arg("requested").none(), nb::arg("target"))
      .def("is_registered",
           [](const PyBackendModule& m) { return backend::is_registered_backend(m.module); })
      .def("__eq__",
           [](const PyBackendModule& a, const PyBackendModule& b) {
             return a.module == b.module || a.module->same_declaration(*b.module);
           })
      .def("__hash__",
           [](const PyBackendModule& m) { return std::hash<std::string>{}(m.module->name); })
      .def("__repr__",
           [](const PyBackendModule& m) { return "BackendModule(" + m.module->name + ")"; });

  nb::class_<BackendContext>(m, "BackendContext")
      .def(
          "__init__",
          [](BackendContext* self, nb::handle module, const target::Target& target,
             const target::Target& target_host, const backend::ExecutionBackendSpec& execution) {
            BackendModulePtr manifest = nb::cast<const PyBackendModule&>(module).module;
            {
              nb::gil_scoped_release release;
              new (self) BackendContext(manifest, target, target_host, execution);
            }
            // An unregistered manifest is copied into the context; its module is still
            // the Python object it was made from.
            if (self->module_ptr() != manifest) keep_context_module(self->module_ptr(), module);
          },
          nb::arg("module"), nb::arg("target"), nb::arg("target_host"),
          nb::arg("execution_backend"))
      .def_prop_ro("module",
                   [](const BackendContext& c) { return python_backend_module(c.module_ptr()); })
      .def_prop_ro("target", &BackendContext::target)
      .def_prop_ro("target_host", &BackendContext::target_host)
      .def_prop_ro(
          "execution_backend",
          [](const BackendContext& c) { return python_execution_backend(c.execution_backend()); })
      .def_prop_ro("name", &BackendContext::name)
      .def("lower", &BackendContext::lower, nb::arg("mod"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("codegen_device", &BackendContext::codegen_device, nb::arg("mod"), nb::kw_only(),
           nb::arg("compile_device") = nb::none(), nb::call_guard<nb::gil_scoped_release>())
      .def("preprocess_host_codegen", &BackendContext::preprocess_host_codegen, nb::arg("mod"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("codegen_host", &BackendContext::codegen_host, nb::arg("mod"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("__repr__", [](const BackendContext& c) {
        return "BackendContext(" + c.name() + ", target=\"" + c.target().str() +
               "\", target_host=\"" + c.target_host().str() +
               "\", execution_backend=" + c.execution_backend().name + ")";
      });

  m.def("initialize", &tilec::initialize, nb::call_guard<nb::gil_scoped_release>(),
        "Registers the built-in backends and loads TILEC_PLUGIN_PATH's plugins (once).");
  m.def(
      "register_backend",
      [](nb::handle module) {
        BackendModulePtr manifest = nb::cast<const PyBackendModule&>(module).module;
        BackendModulePtr registered;
        {
          nb::gil_scoped_release release;
          registered = backend::register_backend(manifest);
        }
        // As the reference: the manifest itself, or the registered one it equals.
        return python_backend_module(registered, module);
      },
      nb::arg("backend"));
  m.def(
      "get_backend",
      [](const std::string& name) {
        BackendModulePtr module;
        {
          nb::gil_scoped_release release;
          module = backend::get_backend(name);
        }
        return python_backend_module(module);
      },
      nb::arg("name"));
  m.def("list_backends", [] {
    std::vector<BackendModulePtr> modules;
    {
      nb::gil_scoped_release release;
      modules = backend::list_backends();
    }
    nb::dict out;
    for (const auto& module : modules) out[nb::cast(module->name)] = python_backend_module(module);
    return out;
  });
  m.def(
      "create_backend_context",
      [](nb::handle target, nb::handle target_host, std::optional<std::string> execution_backend) {
        std::string exec = execution_backend.value_or("auto");
        if (nb::isinstance<nb::str>(target) &&
            (target_host.is_none() || nb::isinstance<nb::str>(target_host))) {
          std::string spec = nb::cast<std::string>(target);
          std::optional<std::string> host;
          if (!target_host.is_none()) host = nb::cast<std::string>(target_host);
          nb::gil_scoped_release release;
          return backend::create_backend_context(spec, host, exec);
        }
        target::Target resolved = nb::isinstance<nb::str>(target)
                                      ? target::determine_target(nb::cast<std::string>(target))
                                      : target_from_python(target);
        std::optional<target::Target> host;
        if (!target_host.is_none()) host = target_from_python(target_host);
        nb::gil_scoped_release release;
        return backend::create_backend_context(resolved, host, exec);
      },
      nb::arg("target") = "auto", nb::arg("target_host") = nb::none(),
      nb::arg("execution_backend") = "auto");
}

}  // namespace tilec::python
