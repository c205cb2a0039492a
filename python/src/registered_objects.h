// The Python objects for the C++ objects the backend layer hands out (identity.h): one
// per registered backend module, host codegen, hook, execution backend spec and device
// codegen, however it is reached (get_backend, a registration's result, a manifest's
// fields, a context, resolve_host_codegen). `candidate`, when given, is the caller's
// own Python object for the same C++ object (the manifest or component it just
// registered), kept as that object when none is kept yet, so register_x(c) is c.
#pragma once

#include "tilec/backend/module.h"

#include <nanobind/nanobind.h>

namespace tilec::python {

namespace nb = nanobind;

// The Python BackendModule: one immutable manifest. Once registered it wraps the
// registry's own module, so it is get_backend(its name).
struct PyBackendModule {
  backend::BackendModulePtr module;
};

nb::object python_backend_module(const backend::BackendModulePtr& module,
                                 nb::handle candidate = nb::handle());
// A context made from an unregistered manifest holds its own copy of it; `object` is the
// manifest's Python object, kept for that copy while the copy lives.
void keep_context_module(const backend::BackendModulePtr& copy, nb::handle object);

nb::object python_host_codegen(const backend::HostCodegen& codegen,
                               nb::handle candidate = nb::handle());
nb::object python_host_codegen_hook(const backend::HostCodegenHook& hook,
                                    nb::handle candidate = nb::handle());
nb::object python_execution_backend(const backend::ExecutionBackendSpec& spec,
                                    nb::handle candidate = nb::handle());
nb::object python_device_codegen(const backend::DeviceCodegen& codegen);

}  // namespace tilec::python
