// Conversions the binding files share: Python target specs, global-function Values,
// and Python callables wrapped as the C++ layer's component functions (SharedFunctions
// whose identity is the Python object, callables.cc).
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
backend::AvailabilityFunc availability_from_python(nb::handle fn, std::string what);

// A C++ component's function as a Python callable: the original object when it came
// from Python, else the one Python object kept for that C++ callable, which calls it
// with the GIL released and is that callable again when given back to a component.
nb::object python_predicate(const backend::TargetPredicate& fn);
nb::object python_host_codegen_func(const backend::HostCodegenFunc& fn);
nb::object python_host_codegen_hook_func(const backend::HostCodegenHookFunc& fn);
nb::object python_global_func(const backend::GlobalFunc& fn);

}  // namespace tilec::python
