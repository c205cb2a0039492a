// The parts of the tilec._core extension module, one per C++ layer it exposes. Each
// binds its types and functions into `m`; module.cc calls them in dependency order.
#pragma once

#include <nanobind/nanobind.h>

namespace tilec::python {

namespace nb = nanobind;

void bind_errors(nb::module_& m);        // C++ exception types -> Python exception classes
void bind_target(nb::module_& m);        // Target, target kinds
void bind_ir(nb::module_& m);            // IRModule, CodeArtifact, PassPipeline
void bind_callables(nb::module_& m);     // C++ component functions as Python callables
void bind_components(nb::module_& m);    // DeviceCodegen, ExecutionBackendSpec, HostCodegen(Hook)
void bind_backend(nb::module_& m);       // components, BackendModule, BackendContext, registry
void bind_host_codegen(nb::module_& m);  // the host codegen registry, lazy imports
void bind_kernel(nb::module_& m);        // parse + compile, Kernel and its calls
void bind_autotune(nb::module_& m);      // autotune configs, measuring one, the tuned cache

}  // namespace tilec::python
