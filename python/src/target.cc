// tilec.target.Target (TVM's Target as the seeds use it: Target("c"), Target(dict),
// Target(target, host), .kind.name, .keys, .attrs, .host, str()) and target kinds, so a
// backend written in Python can own a kind of its own.
#include "bindings.h"

#include "tilec/target/detect.h"
#include "tilec/target/target.h"
#include "tilec/target/target_kind.h"

#include <nanobind/operators.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

namespace tilec::python {

using target::Target;
using target::TargetKind;

namespace {

// A str (target string or JSON text), a dict (JSON object) or a Target.
Target target_from(nb::handle spec) {
  if (nb::isinstance<Target>(spec)) return nb::cast<Target>(spec);
  if (nb::isinstance<nb::dict>(spec)) {
    nb::object dumps = nb::module_::import_("json").attr("dumps");
    return Target::from_json(nlohmann::json::parse(nb::cast<std::string>(dumps(spec))));
  }
  if (nb::isinstance<nb::str>(spec)) return Target::parse(nb::cast<std::string>(spec));
  throw nb::type_error(("a target is a str, a dict or a tilec.target.Target, not " +
                        nb::cast<std::string>(nb::type_name(spec.type())))
                           .c_str());
}

nb::object json_to_python(const nlohmann::json& value) {
  return nb::module_::import_("json").attr("loads")(value.dump());
}

}  // namespace

Target target_from_python(nb::handle spec) {
  return target_from(spec);
}

void bind_target(nb::module_& m) {
  nb::class_<TargetKind>(m, "TargetKind")
      .def_ro("name", &TargetKind::name)
      .def_prop_ro("default_keys", [](const TargetKind& k) { return k.default_keys; })
      .def_ro("description", &TargetKind::description)
      .def("__str__", [](const TargetKind& k) { return k.name; })
      .def("__repr__", [](const TargetKind& k) { return "TargetKind(" + k.name + ")"; })
      .def("__eq__", [](const TargetKind& k, const std::string& name) { return k.name == name; })
      .def("__eq__", [](const TargetKind& a, const TargetKind& b) { return a == b; })
      .def("__hash__", [](const TargetKind& k) { return std::hash<std::string>{}(k.name); });

  nb::class_<Target>(m, "Target")
      .def(
          "__init__",
          [](Target* self, nb::handle spec, nb::handle host) {
            Target target = target_from(spec);
            if (!host.is_none()) target = target.with_host(target_from(host));
            new (self) Target(std::move(target));
          },
          nb::arg("target"), nb::arg("host") = nb::none())
      .def_prop_ro("kind", [](const Target& t) { return t.kind_info(); })
      .def_prop_ro("keys", [](const Target& t) { return nb::tuple(nb::cast(t.keys())); })
      .def_prop_ro("attrs", [](const Target& t) { return t.attrs(); })
      .def_prop_ro("host",
                   [](const Target& t) -> std::optional<Target> {
                     if (auto host = t.host()) return *host;
                     return std::nullopt;
                   })
      .def("has_key", &Target::has_key)
      .def("with_host",
           [](const Target& t, nb::handle host) { return t.with_host(target_from(host)); })
      .def("without_host", &Target::without_host)
      .def("to_json", [](const Target& t) { return json_to_python(t.to_json()); })
      .def("__str__", &Target::str)
      .def("__repr__", [](const Target& t) { return "Target(\"" + t.str() + "\")"; })
      .def("__eq__", [](const Target& a, const Target& b) { return a == b; })
      .def("__eq__", [](const Target&, nb::handle) { return false; })
      .def("__hash__", &Target::hash);

  m.def("determine_target", &target::determine_target, nb::arg("spec") = "auto",
        "What a target spec names: \"auto\" runs the detectors (TILEC_TARGET overrides them).");
  m.def(
      "register_target_kind",
      [](const std::string& name, std::vector<std::string> default_keys,
         const std::string& description, bool override) {
        return *target::register_target_kind(TargetKind{.name = name,
                                                        .attrs = {},
                                                        .default_keys = std::move(default_keys),
                                                        .description = description},
                                             override);
      },
      nb::arg("name"), nb::arg("default_keys"), nb::arg("description") = "",
      nb::arg("override") = false,
      "Registers a target kind without attributes (a backend written in Python owns one).");
  m.def("list_target_kinds", &target::list_target_kind_names);
}

}  // namespace tilec::python
