// tilec.backend.host_codegen: the host codegen registry. Lazy registration takes the
// seed's Python import path as well as a built-in module or a plugin: a path Python can
// import (and that names no built-in module) is registered with the C++ module loader
// as a module whose initializer imports it, so the loader's rules hold for it too —
// loaded once however many threads ask, everything it registered undone when the
// import raises, and retried on next use.
#include "bindings.h"
#include "conversions.h"
#include "py_callable.h"
#include "registered_objects.h"

#include "tilec/backend/backend_error.h"
#include "tilec/backend/host_codegen.h"
#include "tilec/backend/module_loader.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

namespace tilec::python {

namespace {

bool names_builtin_module(const std::string& import_path) {
  auto builtins = backend::list_builtin_modules();
  return std::find(builtins.begin(), builtins.end(), import_path) != builtins.end();
}

// Whether Python can import import_path (finding it only; a parent package is imported).
bool python_can_import(const std::string& import_path) {
  try {
    nb::object find_spec = nb::module_::import_("importlib.util").attr("find_spec");
    return !find_spec(import_path).is_none();
  } catch (const nb::python_error&) {
    return false;  // a missing parent package: not a Python module, maybe a plugin
  }
}

void import_python_module(const std::string& import_path) {
  nb::gil_scoped_acquire gil;
  try {
    nb::module_::import_("importlib").attr("import_module")(import_path);
  } catch (nb::python_error& error) {
    throw_python_failure("importing Python module '" + import_path + "'", error);
  }
}

// Makes a Python import path loadable by the C++ module loader; a path Python
// cannot import is left to the loader (a built-in or a plugin on TILEC_PLUGIN_PATH).
void register_python_import(const std::string& import_path) {
  if (names_builtin_module(import_path) || !python_can_import(import_path)) return;
  backend::register_builtin_module(import_path,
                                   [import_path] { import_python_module(import_path); });
}

}  // namespace

void bind_host_codegen(nb::module_& m) {
  m.def("register_python_import", &register_python_import, nb::arg("import_path"),
        "Lets the module loader import a Python module path (lazy registration).");
  m.def(
      "register_host_codegen",
      [](const std::string& kind, nb::handle codegen, bool override) {
        backend::HostCodegen entry = nb::cast<backend::HostCodegen>(codegen);
        {
          nb::gil_scoped_release release;
          entry = backend::register_host_codegen(kind, std::move(entry), override);
        }
        // As the reference: the codegen itself, or the registered one it is the same as.
        return python_host_codegen(entry, codegen);
      },
      nb::arg("target_host_kind"), nb::arg("codegen"), nb::kw_only(), nb::arg("override") = false);
  m.def(
      "register_lazy_host_codegen",
      [](const std::string& kind, const std::string& import_path) {
        register_python_import(import_path);
        nb::gil_scoped_release release;
        backend::register_lazy_host_codegen(kind, import_path);
      },
      nb::arg("target_host_kind"), nb::arg("import_path"));
  m.def(
      "register_host_codegen_hook",
      [](const std::string& kind, nb::handle hook, bool override) {
        backend::HostCodegenHook entry = nb::cast<backend::HostCodegenHook>(hook);
        {
          nb::gil_scoped_release release;
          entry = backend::register_host_codegen_hook(kind, std::move(entry), override);
        }
        return python_host_codegen_hook(entry, hook);
      },
      nb::arg("target_kind"), nb::arg("hook"), nb::kw_only(), nb::arg("override") = false);
  m.def(
      "register_lazy_host_codegen_hooks",
      [](const std::string& kind, const std::string& import_path) {
        register_python_import(import_path);
        nb::gil_scoped_release release;
        backend::register_lazy_host_codegen_hooks(kind, import_path);
      },
      nb::arg("target_kind"), nb::arg("import_path"));
  m.def(
      "allowed_host_codegens_for_target",
      [](nb::handle target_host) {
        target::Target host = target_from_python(target_host);
        nb::gil_scoped_release release;
        return backend::allowed_host_codegens_for_target(host);
      },
      nb::arg("target_host"));
  m.def(
      "apply_host_codegen_hooks",
      [](const ir::IRModule& mod, nb::handle target_host, nb::handle target) {
        target::Target host = target_from_python(target_host);
        std::optional<target::Target> device;
        if (!target.is_none()) device = target_from_python(target);
        nb::gil_scoped_release release;
        return backend::apply_host_codegen_hooks(mod, host, device ? &*device : nullptr);
      },
      nb::arg("mod"), nb::arg("target_host"), nb::arg("target").none());
  m.def(
      "resolve_host_codegen",
      [](nb::handle target_host) {
        target::Target host = target_from_python(target_host);
        backend::HostCodegen codegen;
        {
          nb::gil_scoped_release release;
          codegen = backend::resolve_host_codegen(host);
        }
        return python_host_codegen(codegen);
      },
      nb::arg("target_host"));
  m.def(
      "global_func_host_codegen",
      [](std::string name) {
        return python_host_codegen_func(backend::global_func_host_codegen(name));
      },
      nb::arg("global_func_name"));
  m.def("list_host_codegens", &backend::list_host_codegens);
  m.def("list_host_codegen_hooks", &backend::list_host_codegen_hooks);
  m.def("list_lazy_host_codegen_imports", &backend::list_lazy_host_codegen_imports);
  m.def("load_module", &backend::load_module, nb::arg("import_path"),
        nb::call_guard<nb::gil_scoped_release>());
  m.def("is_module_loaded", &backend::is_module_loaded, nb::arg("import_path"));
  m.def(
      "register_global_func",
      [](const std::string& name, nb::handle fn, bool override) {
        backend::register_global_func(
            name, global_func_from_python(fn, "global function '" + name + "'"), override);
      },
      nb::arg("name"), nb::arg("fn"), nb::kw_only(), nb::arg("override") = false);
  m.def(
      "get_global_func",
      [](const std::string& name) { return python_global_func(backend::get_global_func(name)); },
      nb::arg("name"));
  m.def("list_global_funcs", &backend::list_global_funcs);
}

}  // namespace tilec::python
