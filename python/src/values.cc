// Global-function Values <-> Python objects, for callbacks declared by Python
// manifests and for calling registered global functions from Python.
#include "conversions.h"

#include "tilec/backend/backend_error.h"

#include <nanobind/stl/string.h>

#include <variant>

namespace tilec::python {

nb::object value_to_python(const backend::Value& value) {
  return std::visit(
      [](const auto& held) -> nb::object {
        using T = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nb::none();
        } else if constexpr (std::is_same_v<T, backend::Bytes>) {
          return nb::bytes(reinterpret_cast<const char*>(held.data()), held.size());
        } else if constexpr (std::is_same_v<T, backend::ValueList>) {
          nb::list list;
          for (const auto& item : held) list.append(value_to_python(item));
          return list;
        } else {
          return nb::cast(held, nb::rv_policy::copy);
        }
      },
      value.storage());
}

backend::Value value_from_python(nb::handle object) {
  if (object.is_none()) return {};
  if (nb::isinstance<nb::bool_>(object)) return nb::cast<bool>(object);
  if (nb::isinstance<nb::int_>(object)) return nb::cast<int64_t>(object);
  if (nb::isinstance<nb::float_>(object)) return nb::cast<double>(object);
  if (nb::isinstance<nb::str>(object)) return nb::cast<std::string>(object);
  if (nb::isinstance<nb::bytes>(object)) {
    nb::bytes bytes = nb::borrow<nb::bytes>(object);
    const auto* data = static_cast<const uint8_t*>(bytes.data());
    return backend::Bytes(data, data + bytes.size());
  }
  if (nb::isinstance<ir::IRModule>(object)) return nb::cast<ir::IRModule>(object);
  if (nb::isinstance<target::Target>(object)) return nb::cast<target::Target>(object);
  if (nb::isinstance<backend::CodeArtifact>(object)) return nb::cast<backend::CodeArtifact>(object);
  if (nb::isinstance<nb::list>(object) || nb::isinstance<nb::tuple>(object)) {
    backend::ValueList list;
    for (nb::handle item : object) list.push_back(value_from_python(item));
    return list;
  }
  throw backend::BackendError(
      "a global function value is None, IRModule, Target, str, int, float, bool, bytes, "
      "CodeArtifact or a list of them, not " +
      nb::cast<std::string>(nb::type_name(object.type())));
}

}  // namespace tilec::python
