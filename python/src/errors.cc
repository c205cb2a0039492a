// Every C++ error type becomes a Python exception class derived from the kind the
// seeds raise for it (ValueError: bad manifests, targets, unknown names, failed
// resolution; kernel argument checks too), carrying the C++ message unchanged.
#include "bindings.h"
#include "py_callable.h"

#include "tilec/backend/backend_error.h"
#include "tilec/engine/engine_error.h"
#include "tilec/ir/expr.h"
#include "tilec/runtime/error.h"
#include "tilec/target/target_error.h"
#include "tilec/transform/pass_context.h"

#include <nanobind/stl/string.h>

namespace tilec::python {

void throw_bad_result(const std::string& what, const char* expected, const nb::object& result) {
  std::string got = nb::cast<std::string>(nb::type_name(result.type()));
  throw backend::BackendError(what + " returned " + got + "; it must return " + expected);
}

void throw_python_failure(const std::string& what, nb::python_error& error) {
  std::string message = what + " raised " + nb::cast<std::string>(nb::type_name(error.type()));
  std::string text = nb::cast<std::string>(nb::str(error.value()));
  if (!text.empty()) message += ": " + text;
  // Where it was raised: the innermost frame of the traceback.
  nb::handle tb = error.traceback();
  if (tb.is_valid() && !tb.is_none()) {
    nb::object frame = nb::borrow(tb);
    while (!nb::getattr(frame, "tb_next").is_none()) frame = nb::getattr(frame, "tb_next");
    nb::object code = frame.attr("tb_frame").attr("f_code");
    message += " (" + nb::cast<std::string>(code.attr("co_filename")) + ":" +
               std::to_string(nb::cast<int>(frame.attr("tb_lineno"))) + ")";
  }
  throw backend::BackendError(message);
}

void bind_errors(nb::module_& m) {
  nb::exception<target::TargetError>(m, "TargetError", PyExc_ValueError);
  nb::exception<ir::IRError>(m, "KernelSourceError", PyExc_ValueError);
  nb::exception<transform::PassError>(m, "PassError", PyExc_ValueError);
  nb::exception<backend::BackendError>(m, "BackendError", PyExc_ValueError);
  nb::exception<EngineError>(m, "EngineError", PyExc_ValueError);
  nb::exception<runtime::RuntimeError>(m, "KernelError", PyExc_ValueError);
}

}  // namespace tilec::python
