// PyCallable: a Python callable held by C++ components (host codegens, hooks,
// predicates, callbacks, availability checks) that the registries copy, store and
// call from any thread. Copies share one reference, so copying never touches Python
// reference counts without the GIL; the last copy drops it under the GIL (or leaks it
// once the interpreter is gone, when the process exits). Calls are made with the GIL
// held; an exception the callable raises becomes a backend::BackendError naming the
// callable, the Python exception and where it was raised, so it fails the C++
// operation exactly as a C++ failure does (journaled registrations undone, nothing
// cached) and reaches Python as tilec.BackendError, a ValueError.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <utility>

namespace tilec::python {

namespace nb = nanobind;

[[noreturn]] void throw_python_failure(const std::string& what, nb::python_error& error);

class PyCallable {
 public:
  // `what` names the callable for messages ("host codegen 'x'").
  PyCallable(nb::handle fn, std::string what)
      : fn_(new nb::object(nb::borrow(fn)), &release), what_(std::move(what)) {}

  // Call with the GIL held by the caller (inside a GilCall).
  template <class... Args>
  nb::object call(Args&&... args) const {
    try {
      return (*fn_)(nb::cast(std::forward<Args>(args), nb::rv_policy::copy)...);
    } catch (nb::python_error& error) {
      throw_python_failure(what_, error);
    }
  }
  const nb::object& object() const { return *fn_; }
  const std::string& what() const { return what_; }

  // Casts a callable's result, naming the callable and the expected type on mismatch.
  template <class T>
  T result_as(const nb::object& result, const char* expected) const;

 private:
  static void release(nb::object* fn) {
    if (Py_IsInitialized()) {
      nb::gil_scoped_acquire gil;
      delete fn;
    }
  }
  std::shared_ptr<nb::object> fn_;
  std::string what_;
};

// "<what> raised KeyError: 'x' (file.py:12)" as a backend::BackendError. GIL held.
[[noreturn]] void throw_python_failure(const std::string& what, nb::python_error& error);

// Raises the C++ error a callable's wrong result type becomes (backend::BackendError).
[[noreturn]] void throw_bad_result(const std::string& what, const char* expected,
                                   const nb::object& result);

template <class T>
T PyCallable::result_as(const nb::object& result, const char* expected) const {
  T value;
  if (!nb::try_cast<T>(result, value)) throw_bad_result(what_, expected, result);
  return value;
}

}  // namespace tilec::python
