// Python identity for the C++ objects the registries hold. The reference's registries
// hold Python objects, so code written for it compares what they hand out with `is`:
// get_backend("cpu") is get_backend("cpu"), register_backend(b) is b,
// context.module is get_backend(name), resolve_host_codegen(t) is the registered
// HostCodegen. The C++ registries hold C++ values that nanobind would wrap in a new
// Python object on every return, so the binding keeps one Python object per C++ object,
// keyed by what makes it that object: a backend module's address; a component's name
// and the identities of its callables (target/callable_identity.h: copies share them).
// An object is kept while C++ still refers to what it stands for (a registry, a
// manifest, a context); once only the kept Python object does, it is let go, so
// nothing replaced or undone is kept alive by Python. All functions need the GIL.
#pragma once

#include <nanobind/nanobind.h>

#include <functional>
#include <string>
#include <vector>

namespace tilec::python {

namespace nb = nanobind;

struct IdentityKey {
  std::string type;                // the Python class
  std::string name;                // the component's name and other plain fields
  std::vector<const void*> parts;  // the module's address, or its callables' identities
  auto operator<=>(const IdentityKey&) const = default;
};

// The Python object kept for key, if any is; else `candidate` when it is not None (the
// caller's own object standing for the same C++ object), else make(); that object is
// kept from now on, while still_referred() says C++ refers to what it stands for.
nb::object identified(const IdentityKey& key, nb::handle candidate,
                      const std::function<nb::object()>& make,
                      std::function<bool(nb::handle object)> still_referred);

// Keeps `object` for key from now on (replacing any), while still_referred(object).
void keep_identity(const IdentityKey& key, nb::handle object,
                   std::function<bool(nb::handle object)> still_referred);

}  // namespace tilec::python
