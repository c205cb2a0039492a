// Conversions the binding files share: Python target specs, global-function Values,
// and Python callables wrapped as the C++ layer's std::function types.
#pragma once

#include "py_callable.h"

#include "tilec/backend/execution_backend.h"
#include "tilec/backend/global_function.h"
#include "tilec/backend/host_codegen.h"
#include "tilec/target/target.h"

#include <nanobind/nanobind.h>

#include <string>

namespace tilec::python {

// A str (target string or JSON text), a dict (JSON object) or a tilec.target.Target.
target::Target target_from_python(nb::handle spec);

// Global-function values (callbacks): None, IRModule, Target, str, int, float, bool,
// bytes, CodeArtifact and lists of them. GIL held.
nb::object value_to_python(const backend::Value& value);
backend::Value value_from_python(nb::handle object);

// Python callables as C++ components; `what` names them in errors.
backend::TargetPredicate predicate_from_python(nb::handle fn, std::string what);
backend::HostCodegenFunc host_codegen_func_from_python(nb::handle fn, std::string what);
backend::HostCodegenHookFunc host_codegen_hook_func_from_python(nb::handle fn, std::string what);
backend::GlobalFunc global_func_from_python(nb::handle fn, std::string what);
std::function<bool()> availability_from_python(nb::handle fn, std::string what);

// A C++ component's function as a Python callable: the original object when it came
// from Python, else a wrapper calling the C++ function (GIL released while it runs).
nb::object python_predicate(const backend::TargetPredicate& fn);
nb::object python_host_codegen_func(const backend::HostCodegenFunc& fn);
nb::object python_host_codegen_hook_func(const backend::HostCodegenHookFunc& fn);
nb::object python_global_func(const backend::GlobalFunc& fn);

}  // namespace tilec::python

namespace tilec::python {

// The Python object a component function was made from; null for a C++ function.
PyObject* python_origin(const backend::TargetPredicate& fn);
PyObject* python_origin(const backend::HostCodegenFunc& fn);
PyObject* python_origin(const backend::HostCodegenHookFunc& fn);
PyObject* python_origin(const backend::GlobalFunc& fn);
PyObject* python_origin(const std::function<bool()>& fn);

// The wrapper flavor of a Python-made function (0 or 1; -1 for a C++ function), and a
// copy of a component whose Python-made functions use `flavor` (see callables.cc).
int python_flavor(const backend::HostCodegenFunc& fn);
int python_flavor(const backend::HostCodegenHookFunc& fn);
backend::HostCodegen with_python_flavor(backend::HostCodegen codegen, int flavor);
backend::HostCodegenHook with_python_flavor(backend::HostCodegenHook hook, int flavor);

}  // namespace tilec::python
