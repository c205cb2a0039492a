// Python callables wrapped as C++ components, and back. Each wrapper is a functor type
// of its own so the original Python object can be recovered (target<T>()) when the C++
// layer hands a component back to Python.
#include "conversions.h"

#include "tilec/backend/artifact.h"
#include "tilec/ir/function.h"

#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

namespace tilec::python {

namespace {

// Flavor: two otherwise identical functor types. The C++ registries compare callables
// by type (target/callable_identity.h), and every Python callable of one kind has the
// same wrapper type, so registering a different Python function under a taken name
// uses the other flavor than the registered entry (the registry then sees a different
// function: an error, or a replacement with override), and the same function the
// registered flavor (a no-op). tilec/backend/host_codegen.py picks the flavor.
template <int Flavor>
struct PyPredicateT {
  PyCallable fn;
  bool operator()(const target::Target& target) const {
    nb::gil_scoped_acquire gil;
    return fn.result_as<bool>(fn.call(target), "a bool");
  }
};

using PyPredicate = PyPredicateT<0>;

template <int Flavor>
struct PyHostCodegenFuncT {
  PyCallable fn;
  backend::CodeArtifact operator()(const ir::IRModule& mod, const target::Target& host) const {
    nb::gil_scoped_acquire gil;
    return fn.result_as<backend::CodeArtifact>(fn.call(mod, host), "a tilec CodeArtifact");
  }
};

using PyHostCodegenFunc = PyHostCodegenFuncT<0>;

template <int Flavor>
struct PyHostCodegenHookFuncT {
  PyCallable fn;
  ir::IRModule operator()(const ir::IRModule& mod, const target::Target& host,
                          const target::Target* target) const {
    nb::gil_scoped_acquire gil;
    nb::object py_target = target ? nb::cast(*target, nb::rv_policy::copy) : nb::none();
    return fn.result_as<ir::IRModule>(fn.call(mod, host, py_target), "a tilec IRModule");
  }
};

using PyHostCodegenHookFunc = PyHostCodegenHookFuncT<0>;

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

void require_callable(nb::handle fn, const std::string& what) {
  if (!PyCallable_Check(fn.ptr()))
    throw nb::type_error(
        (what + " must be callable, not " + nb::cast<std::string>(nb::type_name(fn.type())))
            .c_str());
}

template <template <int> class Wrapper, class Function>
const PyCallable* python_callable_of(const Function& fn) {
  if (!fn) return nullptr;
  if (const auto* wrapper = fn.template target<Wrapper<0>>()) return &wrapper->fn;
  if (const auto* wrapper = fn.template target<Wrapper<1>>()) return &wrapper->fn;
  return nullptr;
}

template <template <int> class Wrapper, class Function>
int flavor_of(const Function& fn) {
  if (fn && fn.template target<Wrapper<0>>()) return 0;
  if (fn && fn.template target<Wrapper<1>>()) return 1;
  return -1;
}

template <template <int> class Wrapper, class Function>
Function with_flavor_of(const Function& fn, int flavor) {
  const PyCallable* callable = python_callable_of<Wrapper>(fn);
  if (!callable) return fn;
  if (flavor == 1) return Wrapper<1>{*callable};
  return Wrapper<0>{*callable};
}

}  // namespace

backend::TargetPredicate predicate_from_python(nb::handle fn, std::string what) {
  require_callable(fn, what);
  return PyPredicate{PyCallable(fn, std::move(what))};
}
backend::HostCodegenFunc host_codegen_func_from_python(nb::handle fn, std::string what) {
  require_callable(fn, what);
  return PyHostCodegenFunc{PyCallable(fn, std::move(what))};
}
backend::HostCodegenHookFunc host_codegen_hook_func_from_python(nb::handle fn, std::string what) {
  require_callable(fn, what);
  return PyHostCodegenHookFunc{PyCallable(fn, std::move(what))};
}
backend::GlobalFunc global_func_from_python(nb::handle fn, std::string what) {
  require_callable(fn, what);
  return PyGlobalFunc{PyCallable(fn, std::move(what))};
}
std::function<bool()> availability_from_python(nb::handle fn, std::string what) {
  require_callable(fn, what);
  return PyAvailability{PyCallable(fn, std::move(what))};
}

nb::object python_predicate(const backend::TargetPredicate& fn) {
  if (!fn) return nb::none();
  if (const PyCallable* callable = python_callable_of<PyPredicateT>(fn)) return callable->object();
  return nb::cast(fn);  // nanobind's std::function caster: a C++ function callable from Python
}
nb::object python_host_codegen_func(const backend::HostCodegenFunc& fn) {
  if (!fn) return nb::none();
  if (const PyCallable* callable = python_callable_of<PyHostCodegenFuncT>(fn))
    return callable->object();
  return nb::cpp_function([fn](const ir::IRModule& mod, const target::Target& host) {
    nb::gil_scoped_release release;
    return fn(mod, host);
  });
}
nb::object python_host_codegen_hook_func(const backend::HostCodegenHookFunc& fn) {
  if (!fn) return nb::none();
  if (const PyCallable* callable = python_callable_of<PyHostCodegenHookFuncT>(fn))
    return callable->object();
  // The C++ signature takes the device target by pointer; Python passes a Target or None.
  return nb::cpp_function([fn](const ir::IRModule& mod, const target::Target& host,
                               std::optional<target::Target> target) {
    nb::gil_scoped_release release;
    return fn(mod, host, target ? &*target : nullptr);
  });
}
nb::object python_global_func(const backend::GlobalFunc& fn) {
  if (!fn) return nb::none();
  if (const auto* wrapper = fn.target<PyGlobalFunc>()) return wrapper->fn.object();
  return nb::cpp_function([fn](nb::args args) {
    backend::ValueList values;
    for (nb::handle arg : args) values.push_back(value_from_python(arg));
    backend::Value result;
    {
      nb::gil_scoped_release release;
      result = fn(values);
    }
    return value_to_python(result);
  });
}

}  // namespace tilec::python

namespace tilec::python {

namespace {
template <class Wrapper, class Function>
PyObject* origin_of(const Function& fn) {
  const Wrapper* wrapper = fn ? fn.template target<Wrapper>() : nullptr;
  return wrapper ? wrapper->fn.object().ptr() : nullptr;
}
template <template <int> class Wrapper, class Function>
PyObject* flavored_origin_of(const Function& fn) {
  const PyCallable* callable = python_callable_of<Wrapper>(fn);
  return callable ? callable->object().ptr() : nullptr;
}
}  // namespace

PyObject* python_origin(const backend::TargetPredicate& fn) {
  return flavored_origin_of<PyPredicateT>(fn);
}
PyObject* python_origin(const backend::HostCodegenFunc& fn) {
  return flavored_origin_of<PyHostCodegenFuncT>(fn);
}
PyObject* python_origin(const backend::HostCodegenHookFunc& fn) {
  return flavored_origin_of<PyHostCodegenHookFuncT>(fn);
}
PyObject* python_origin(const backend::GlobalFunc& fn) {
  return origin_of<PyGlobalFunc>(fn);
}
PyObject* python_origin(const std::function<bool()>& fn) {
  return origin_of<PyAvailability>(fn);
}

int python_flavor(const backend::HostCodegenFunc& fn) {
  return flavor_of<PyHostCodegenFuncT>(fn);
}
int python_flavor(const backend::HostCodegenHookFunc& fn) {
  return flavor_of<PyHostCodegenHookFuncT>(fn);
}
backend::HostCodegen with_python_flavor(backend::HostCodegen codegen, int flavor) {
  codegen.build = with_flavor_of<PyHostCodegenFuncT>(codegen.build, flavor);
  if (codegen.supports_target)
    codegen.supports_target = with_flavor_of<PyPredicateT>(*codegen.supports_target, flavor);
  return codegen;
}
backend::HostCodegenHook with_python_flavor(backend::HostCodegenHook hook, int flavor) {
  hook.apply = with_flavor_of<PyHostCodegenHookFuncT>(hook.apply, flavor);
  if (hook.supports_target)
    hook.supports_target = with_flavor_of<PyPredicateT>(*hook.supports_target, flavor);
  return hook;
}

}  // namespace tilec::python
