// The IR-level objects Python code handles without building IR itself: IRModule
// (printed, inspected, annotated by hooks), CodeArtifact (what host codegens return)
// and PassPipeline/Pass (a registered backend's pipeline reused under a new kind).
#include "bindings.h"

#include "tilec/backend/artifact.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/function.h"
#include "tilec/ir/printer.h"
#include "tilec/transform/pass_pipeline.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

namespace tilec::python {

void bind_ir(nb::module_& m) {
  nb::class_<ir::IRModule>(m, "IRModule")
      .def_prop_ro("function_names",
                   [](const ir::IRModule& mod) {
                     std::vector<std::string> names;
                     for (const auto& fn : mod.functions()) names.push_back(fn->name);
                     return names;
                   })
      .def_prop_ro("attrs", [](const ir::IRModule& mod) { return mod.attrs(); })
      .def("with_attr", &ir::IRModule::with_attr, nb::arg("key"), nb::arg("value"),
           "A copy with module attribute key set (the module itself is immutable).")
      .def("__len__", &ir::IRModule::size)
      .def("__str__", [](const ir::IRModule& mod) { return ir::print(mod); });

  m.def(
      "parse_kernel_source",
      [](const std::string& source, const std::string& filename,
         std::map<std::string, std::string> defines) {
        return ir::parse_kernel_source(
            source, ir::ParseOptions{.filename = filename, .defines = std::move(defines)});
      },
      nb::arg("source"), nb::arg("filename") = "<string>",
      nb::arg("defines") = std::map<std::string, std::string>{});

  nb::class_<backend::CodeArtifact>(m, "CodeArtifact")
      .def(
          "__init__",
          [](backend::CodeArtifact* self, std::string format, std::string source, nb::bytes binary,
             std::vector<std::string> entry_points, std::map<std::string, std::string> metadata) {
            const auto* data = static_cast<const uint8_t*>(binary.data());
            new (self) backend::CodeArtifact{std::move(format), std::move(source),
                                             std::vector<uint8_t>(data, data + binary.size()),
                                             std::move(entry_points), std::move(metadata)};
          },
          nb::arg("format"), nb::arg("source") = "", nb::arg("binary") = nb::bytes(""),
          nb::arg("entry_points") = std::vector<std::string>{},
          nb::arg("metadata") = std::map<std::string, std::string>{})
      .def_ro("format", &backend::CodeArtifact::format)
      .def_ro("source", &backend::CodeArtifact::source)
      .def_prop_ro("binary",
                   [](const backend::CodeArtifact& a) {
                     return nb::bytes(reinterpret_cast<const char*>(a.binary.data()),
                                      a.binary.size());
                   })
      .def_ro("entry_points", &backend::CodeArtifact::entry_points)
      .def_ro("metadata", &backend::CodeArtifact::metadata)
      .def("__eq__",
           [](const backend::CodeArtifact& a, const backend::CodeArtifact& b) { return a == b; });

  nb::class_<transform::Pass>(m, "Pass")
      .def_ro("name", &transform::Pass::name)
      .def("__repr__", [](const transform::Pass& p) { return "Pass(" + p.name + ")"; });
  nb::class_<transform::PassPipeline>(m, "PassPipeline")
      .def(nb::init<std::string, std::vector<transform::Pass>>(), nb::arg("name"),
           nb::arg("passes"))
      .def_prop_ro("name", &transform::PassPipeline::name)
      .def_prop_ro("passes", &transform::PassPipeline::passes)
      .def_prop_ro("pass_names", &transform::PassPipeline::pass_names)
      .def(
          "lower",
          [](const transform::PassPipeline& p, const ir::IRModule& mod,
             const target::Target& target) { return p.lower(mod, target); },
          nb::arg("mod"), nb::arg("target"), nb::call_guard<nb::gil_scoped_release>());
}

}  // namespace tilec::python
