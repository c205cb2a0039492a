// The components a manifest is made of, as Python classes with the seeds' fields:
// DeviceCodegen (reused from a registered backend), ExecutionBackendSpec, HostCodegen
// and HostCodegenHook (built from Python callables or reused). Fields are read-only,
// like the seeds' frozen dataclasses; a component built from Python callables calls
// them where the C++ layer calls the component, and holds the same callable as every
// other component built from the same Python objects (callables.cc).
#include "bindings.h"
#include "conversions.h"

#include "tilec/backend/device_codegen.h"
#include "tilec/backend/execution_backend.h"
#include "tilec/backend/host_codegen.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

namespace tilec::python {

namespace {

std::optional<backend::TargetPredicate> optional_predicate(nb::handle fn, const std::string& what) {
  if (fn.is_none()) return std::nullopt;
  return predicate_from_python(fn, what + " supports_target");
}

nb::object optional_python_predicate(const std::optional<backend::TargetPredicate>& fn) {
  return fn ? python_predicate(*fn) : nb::none();
}

}  // namespace

void bind_components(nb::module_& m) {
  nb::class_<backend::DeviceCodegen>(m, "DeviceCodegen")
      .def_ro("name", &backend::DeviceCodegen::name)
      .def(
          "lower",
          [](const backend::DeviceCodegen& c, const ir::IRModule& mod, const target::Target& t,
             bool compile_device) { return c.codegen(mod, t, compile_device); },
          nb::arg("mod"), nb::arg("target"), nb::kw_only(), nb::arg("compile_device"),
          nb::call_guard<nb::gil_scoped_release>())
      .def("__repr__",
           [](const backend::DeviceCodegen& c) { return "DeviceCodegen(" + c.name + ")"; });

  nb::class_<backend::ExecutionBackendSpec>(m, "ExecutionBackendSpec")
      .def(
          "__init__",
          [](backend::ExecutionBackendSpec* self, std::string name, nb::handle is_available,
             nb::handle supports_target, bool enable_host_codegen, bool enable_device_compile) {
            std::string what = "execution backend '" + name + "'";
            new (self) backend::ExecutionBackendSpec{
                .name = name,
                .is_available = is_available.is_none() ? backend::AvailabilityFunc{}
                                                       : availability_from_python(
                                                             is_available, what + " is_available"),
                .supports_target = optional_predicate(supports_target, what),
                .enable_host_codegen = enable_host_codegen,
                .enable_device_compile = enable_device_compile};
          },
          nb::arg("name"), nb::arg("is_available") = nb::none(),
          nb::arg("supports_target") = nb::none(), nb::arg("enable_host_codegen") = true,
          nb::arg("enable_device_compile") = true)
      .def_ro("name", &backend::ExecutionBackendSpec::name)
      .def_ro("enable_host_codegen", &backend::ExecutionBackendSpec::enable_host_codegen)
      .def_ro("enable_device_compile", &backend::ExecutionBackendSpec::enable_device_compile)
      .def_prop_ro("supports_target",
                   [](const backend::ExecutionBackendSpec& s) {
                     return optional_python_predicate(s.supports_target);
                   })
      .def("is_available", &backend::ExecutionBackendSpec::available,
           nb::call_guard<nb::gil_scoped_release>())
      .def("matches", &backend::ExecutionBackendSpec::matches, nb::arg("target"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("__repr__", [](const backend::ExecutionBackendSpec& s) {
        return "ExecutionBackendSpec(" + s.name + ")";
      });

  nb::class_<backend::HostCodegen>(m, "HostCodegen")
      .def(
          "__init__",
          [](backend::HostCodegen* self, std::string name, nb::handle build,
             nb::handle supports_target) {
            std::string what = "host codegen '" + name + "'";
            new (self)
                backend::HostCodegen{.name = name,
                                     .build = host_codegen_func_from_python(build, what + " build"),
                                     .supports_target = optional_predicate(supports_target, what)};
          },
          nb::arg("name"), nb::arg("build"), nb::arg("supports_target") = nb::none())
      .def_ro("name", &backend::HostCodegen::name)
      .def_prop_ro("build",
                   [](const backend::HostCodegen& c) { return python_host_codegen_func(c.build); })
      .def_prop_ro("supports_target",
                   [](const backend::HostCodegen& c) {
                     return optional_python_predicate(c.supports_target);
                   })
      .def("matches", &backend::HostCodegen::matches, nb::arg("target_host"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("lower", &backend::HostCodegen::lower, nb::arg("mod"), nb::arg("target_host"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("__repr__", [](const backend::HostCodegen& c) { return "HostCodegen(" + c.name + ")"; });

  nb::class_<backend::HostCodegenHook>(m, "HostCodegenHook")
      .def(
          "__init__",
          [](backend::HostCodegenHook* self, std::string name, nb::handle apply,
             nb::handle supports_target) {
            std::string what = "host codegen hook '" + name + "'";
            new (self) backend::HostCodegenHook{
                .name = name,
                .apply = host_codegen_hook_func_from_python(apply, what + " apply"),
                .supports_target = optional_predicate(supports_target, what)};
          },
          nb::arg("name"), nb::arg("apply"), nb::arg("supports_target") = nb::none())
      .def_ro("name", &backend::HostCodegenHook::name)
      .def_prop_ro(
          "apply",
          [](const backend::HostCodegenHook& h) { return python_host_codegen_hook_func(h.apply); })
      .def_prop_ro("supports_target",
                   [](const backend::HostCodegenHook& h) {
                     return optional_python_predicate(h.supports_target);
                   })
      .def("matches", &backend::HostCodegenHook::matches, nb::arg("target"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("lower", &backend::HostCodegenHook::lower, nb::arg("mod"), nb::arg("target_host"),
           nb::arg("target"), nb::call_guard<nb::gil_scoped_release>())
      .def("__repr__",
           [](const backend::HostCodegenHook& h) { return "HostCodegenHook(" + h.name + ")"; });
}

}  // namespace tilec::python
