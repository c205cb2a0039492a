// Python callables wrapped as C++ components, and back. A Python callable becomes a
// SharedFunction made for that Python object (target/callable_identity.h), so every
// component built from the same object holds the same callable, and another object
// (another closure of one factory) a different one: registries then tell them apart
// as the reference does. A C++ callable handed to Python is one object per callable
// (a _CppFunction, kept as identity.h keeps objects) and, given back to a component,
// is that C++ callable again.
#include "conversions.h"
#include "identity.h"

#include "tilec/backend/artifact.h"
#include "tilec/ir/function.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

namespace tilec::python {

namespace {

struct PyPredicate {
  PyCallable fn;
  bool operator()(const target::Target& target) const {
    nb::gil_scoped_acquire gil;
    return fn.result_as<bool>(fn.call(target), "a bool");
  }
};

struct PyHostCodegenFunc {
  PyCallable fn;
  backend::CodeArtifact operator()(const ir::IRModule& mod, const target::Target& host) const {
    nb::gil_scoped_acquire gil;
    return fn.result_as<backend::CodeArtifact>(fn.call(mod, host), "a tilec CodeArtifact");
  }
};

struct PyHostCodegenHookFunc {
  PyCallable fn;
  ir::IRModule operator()(const ir::IRModule& mod, const target::Target& host,
                          const target::Target* target) const {
    nb::gil_scoped_acquire gil;
    nb::object py_target = target ? nb::cast(*target, nb::rv_policy::copy) : nb::none();
    return fn.result_as<ir::IRModule>(fn.call(mod, host, py_target), "a tilec IRModule");
  }
};

struct PyGlobalFunc {
  PyCallable fn;
  backend::Value operator()(const backend::ValueList& args) const {
    nb::gil_scoped_acquire gil;
    nb::list py_args;
    for (const auto& arg : args) py_args.append(value_to_python(arg));
    try {
      return value_from_python(fn.object()(*py_args));
    } catch (nb::python_error& error) {
      throw_python_failure(fn.what(), error);
    }
  }
};

struct PyAvailability {
  PyCallable fn;
  bool operator()() const {
    nb::gil_scoped_acquire gil;
    return fn.result_as<bool>(fn.call(), "a bool");
  }
};

// A C++ callable as a Python object (bound below as _CppFunction classes).
template <class Function>
struct CppFunction {
  Function fn;
};

void require_callable(nb::handle fn, const std::string& what) {
  if (!PyCallable_Check(fn.ptr()))
    throw nb::type_error(
        (what + " must be callable, not " + nb::cast<std::string>(nb::type_name(fn.type())))
            .c_str());
}

// The component function for a Python callable: the C++ callable itself when fn is one
// handed out by python_function, else a Wrapper made for the Python object fn.
template <class Function, class Wrapper>
Function function_from_python(nb::handle fn, std::string what) {
  if (nb::isinstance<CppFunction<Function>>(fn)) return nb::cast<CppFunction<Function>&>(fn).fn;
  require_callable(fn, what);
  return Function(Wrapper{PyCallable(fn, std::move(what))}, fn.ptr());
}

// The Python object for a component function: the Python callable it was made from,
// else the one _CppFunction kept for the C++ callable.
template <class Wrapper, class Function>
nb::object python_function(const Function& fn, const char* type) {
  if (!fn) return nb::none();
  if (const auto* wrapper = fn.template target<Wrapper>()) return wrapper->fn.object();
  return identified(
      IdentityKey{type, "", {fn.identity()}}, nb::handle(),
      [&] { return nb::cast(CppFunction<Function>{fn}); },
      [](nb::handle object) {
        return nb::inst_ptr<CppFunction<Function>>(object)->fn.use_count() > 1;
      });
}

}  // namespace

backend::TargetPredicate predicate_from_python(nb::handle fn, std::string what) {
  return function_from_python<backend::TargetPredicate, PyPredicate>(fn, std::move(what));
}
backend::HostCodegenFunc host_codegen_func_from_python(nb::handle fn, std::string what) {
  return function_from_python<backend::HostCodegenFunc, PyHostCodegenFunc>(fn, std::move(what));
}
backend::HostCodegenHookFunc host_codegen_hook_func_from_python(nb::handle fn, std::string what) {
  return function_from_python<backend::HostCodegenHookFunc, PyHostCodegenHookFunc>(fn,
                                                                                   std::move(what));
}
backend::GlobalFunc global_func_from_python(nb::handle fn, std::string what) {
  return function_from_python<backend::GlobalFunc, PyGlobalFunc>(fn, std::move(what));
}
backend::AvailabilityFunc availability_from_python(nb::handle fn, std::string what) {
  return function_from_python<backend::AvailabilityFunc, PyAvailability>(fn, std::move(what));
}

nb::object python_predicate(const backend::TargetPredicate& fn) {
  return python_function<PyPredicate>(fn, "TargetPredicate");
}
nb::object python_host_codegen_func(const backend::HostCodegenFunc& fn) {
  return python_function<PyHostCodegenFunc>(fn, "HostCodegenFunc");
}
nb::object python_host_codegen_hook_func(const backend::HostCodegenHookFunc& fn) {
  return python_function<PyHostCodegenHookFunc>(fn, "HostCodegenHookFunc");
}
nb::object python_global_func(const backend::GlobalFunc& fn) {
  return python_function<PyGlobalFunc>(fn, "GlobalFunc");
}

void bind_callables(nb::module_& m) {
  // Each runs the C++ callable with the GIL released (it may call back into Python).
  nb::class_<CppFunction<backend::TargetPredicate>>(m, "_CppTargetPredicate")
      .def("__call__", [](const CppFunction<backend::TargetPredicate>& f, nb::handle target) {
        target::Target t = target_from_python(target);
        nb::gil_scoped_release release;
        return f.fn(t);
      });
  nb::class_<CppFunction<backend::HostCodegenFunc>>(m, "_CppHostCodegenFunc")
      .def("__call__", [](const CppFunction<backend::HostCodegenFunc>& f, const ir::IRModule& mod,
                          nb::handle target_host) {
        target::Target host = target_from_python(target_host);
        nb::gil_scoped_release release;
        return f.fn(mod, host);
      });
  // The C++ signature takes the device target by pointer; Python passes a Target or None.
  nb::class_<CppFunction<backend::HostCodegenHookFunc>>(m, "_CppHostCodegenHookFunc")
      .def("__call__", [](const CppFunction<backend::HostCodegenHookFunc>& f,
                          const ir::IRModule& mod, nb::handle target_host, nb::handle target) {
        target::Target host = target_from_python(target_host);
        std::optional<target::Target> device;
        if (!target.is_none()) device = target_from_python(target);
        nb::gil_scoped_release release;
        return f.fn(mod, host, device ? &*device : nullptr);
      });
  nb::class_<CppFunction<backend::GlobalFunc>>(m, "_CppGlobalFunc")
      .def("__call__", [](const CppFunction<backend::GlobalFunc>& f, nb::args args) {
        backend::ValueList values;
        for (nb::handle arg : args) values.push_back(value_from_python(arg));
        backend::Value result;
        {
          nb::gil_scoped_release release;
          result = f.fn(values);
        }
        return value_to_python(result);
      });
  nb::class_<CppFunction<backend::AvailabilityFunc>>(m, "_CppAvailabilityFunc")
      .def("__call__", [](const CppFunction<backend::AvailabilityFunc>& f) {
        nb::gil_scoped_release release;
        return f.fn();
      });
}

}  // namespace tilec::python
