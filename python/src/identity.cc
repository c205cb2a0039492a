#include "identity.h"

#include <map>

namespace tilec::python {

namespace {

struct Kept {
  nb::object object;
  std::function<bool(nb::handle)> still_referred;
};

// Never destroyed: the interpreter may be gone when static destructors run, and the
// objects are released with the process (as the registries' Python callables are).
std::map<IdentityKey, Kept>& kept() {
  static auto* table = new std::map<IdentityKey, Kept>();
  return *table;
}

// Lets go of every object C++ no longer refers to (a replaced, undone or dropped one), so
// its key may name a new object later without handing out the old one.
void drop_unreferred() {
  std::erase_if(
      kept(), [](const auto& entry) { return !entry.second.still_referred(entry.second.object); });
}

}  // namespace

nb::object identified(const IdentityKey& key, nb::handle candidate,
                      const std::function<nb::object()>& make,
                      std::function<bool(nb::handle object)> still_referred) {
  auto found = kept().find(key);
  if (found != kept().end() && found->second.still_referred(found->second.object)) {
    return found->second.object;
  }
  nb::object object = candidate.is_valid() && !candidate.is_none() ? nb::borrow(candidate) : make();
  keep_identity(key, object, std::move(still_referred));
  return object;
}

void keep_identity(const IdentityKey& key, nb::handle object,
                   std::function<bool(nb::handle object)> still_referred) {
  drop_unreferred();
  kept()[key] = Kept{nb::borrow(object), std::move(still_referred)};
}

}  // namespace tilec::python
