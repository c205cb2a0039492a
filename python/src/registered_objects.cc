#include "registered_objects.h"

#include "identity.h"

#include <string>

namespace tilec::python {

namespace {

template <class Function>
const void* identity_of(const std::optional<Function>& fn) {
  return fn ? fn->identity() : nullptr;
}

// Whether anything but `held` (the copy inside the kept Python object) shares one of
// these callables: a registry, a manifest or a context still refers to the component.
// A component without callables is a plain value and is kept for good.
template <class... Functions>
bool shared_beyond_one(const Functions&... fns) {
  long most = 0;
  bool any = false;
  auto count = [&](const auto& fn) {
    if constexpr (requires { fn.has_value(); }) {
      if (!fn) return;
      any = true;
      most = std::max(most, fn->use_count());
    } else {
      if (!fn) return;
      any = true;
      most = std::max(most, fn.use_count());
    }
  };
  (count(fns), ...);
  return !any || most > 1;
}

// The kept object for `value` (of the bound type T) under key, made from a copy of
// value when there is none.
template <class T, class Referred>
nb::object kept_value(const IdentityKey& key, const T& value, nb::handle candidate,
                      Referred referred) {
  return identified(
      key, candidate, [&] { return nb::cast(value, nb::rv_policy::copy); },
      [referred](nb::handle object) { return referred(*nb::inst_ptr<T>(object)); });
}

}  // namespace

nb::object python_backend_module(const backend::BackendModulePtr& module, nb::handle candidate) {
  IdentityKey key{"BackendModule", module->name, {module.get()}};
  nb::object object = identified(
      key, candidate, [&] { return nb::cast(PyBackendModule{module}); },
      [](nb::handle kept) { return nb::inst_ptr<PyBackendModule>(kept)->module.use_count() > 1; });
  // The caller's manifest, now the object for the registered module, wraps it (the same
  // declaration: the registry's copy of it, or the registered one it equals), so the
  // object and the registry hold one module.
  if (object.is(candidate)) nb::inst_ptr<PyBackendModule>(object)->module = module;
  return object;
}

void keep_context_module(const backend::BackendModulePtr& copy, nb::handle object) {
  keep_identity(IdentityKey{"BackendModule", copy->name, {copy.get()}}, object,
                [weak = std::weak_ptr<const backend::BackendModule>(copy)](nb::handle) {
                  return !weak.expired();
                });
}

nb::object python_host_codegen(const backend::HostCodegen& codegen, nb::handle candidate) {
  IdentityKey key{"HostCodegen",
                  codegen.name,
                  {codegen.build.identity(), identity_of(codegen.supports_target)}};
  return kept_value(key, codegen, candidate, [](const backend::HostCodegen& c) {
    return shared_beyond_one(c.build, c.supports_target);
  });
}

nb::object python_host_codegen_hook(const backend::HostCodegenHook& hook, nb::handle candidate) {
  IdentityKey key{
      "HostCodegenHook", hook.name, {hook.apply.identity(), identity_of(hook.supports_target)}};
  return kept_value(key, hook, candidate, [](const backend::HostCodegenHook& h) {
    return shared_beyond_one(h.apply, h.supports_target);
  });
}

nb::object python_execution_backend(const backend::ExecutionBackendSpec& spec,
                                    nb::handle candidate) {
  std::string fields = spec.name + (spec.enable_host_codegen ? " host" : "") +
                       (spec.enable_device_compile ? " device_compile" : "");
  IdentityKey key{"ExecutionBackendSpec",
                  fields,
                  {spec.is_available.identity(), identity_of(spec.supports_target)}};
  return kept_value(key, spec, candidate, [](const backend::ExecutionBackendSpec& s) {
    return shared_beyond_one(s.is_available, s.supports_target);
  });
}

nb::object python_device_codegen(const backend::DeviceCodegen& codegen) {
  IdentityKey key{"DeviceCodegen",
                  codegen.name,
                  {codegen.build.identity(), codegen.build_without_compile.identity()}};
  return kept_value(key, codegen, nb::handle(), [](const backend::DeviceCodegen& c) {
    return shared_beyond_one(c.build, c.build_without_compile);
  });
}

}  // namespace tilec::python
