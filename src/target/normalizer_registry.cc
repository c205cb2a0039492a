#include "tilec/target/normalizer_registry.h"

#include "text_util.h"
#include "tilec/target/callable_identity.h"

#include <fmt/format.h>

namespace tilec::target {

struct TargetNormalizerRegistry::Entry {
  std::string name;
  TargetNormalizerFunc fn;

  bool same_as(const Entry& other) const { return detail::same_callable(fn, other.fn); }
};

TargetNormalizerRegistry::TargetNormalizerRegistry() = default;
TargetNormalizerRegistry::~TargetNormalizerRegistry() = default;

void TargetNormalizerRegistry::add(std::string name, TargetNormalizerFunc fn, bool override) {
  if (name.empty()) {
    throw TargetError(
        "cannot register a target normalizer with an empty name; name it after "
        "what it normalizes, e.g. \"cuda_arch\"");
  }
  if (!fn) {
    throw TargetError(fmt::format("cannot register target normalizer '{}': its function is empty",
                                  detail::printable(name)));
  }
  entries_.insert(Entry{std::move(name), std::move(fn)}, override, "target normalizer",
                  "normalizers");
}

bool TargetNormalizerRegistry::remove(std::string_view name) {
  return entries_.remove(name);
}

std::vector<std::string> TargetNormalizerRegistry::names() const {
  return entries_.names();
}

Target TargetNormalizerRegistry::apply_all(const std::vector<std::shared_ptr<const Entry>>& entries,
                                           const Target& target) const {
  Target current = target;
  for (const auto& entry : entries) {
    std::optional<Target> rewritten;
    try {
      rewritten = entry->fn(current);
    } catch (const std::exception& e) {
      throw TargetError(fmt::format("target normalizer '{}' failed on '{}': {}", entry->name,
                                    current.str(), e.what()));
    } catch (...) {
      throw TargetError(
          fmt::format("target normalizer '{}' failed on '{}' with an exception that "
                      "is not a std::exception",
                      entry->name, current.str()));
    }
    if (rewritten) current = *std::move(rewritten);
  }
  return current;
}

Target TargetNormalizerRegistry::normalize(const Target& target) const {
  auto entries = entries_.snapshot();
  Target result = apply_all(entries, target);
  if (auto host = result.host()) result = result.with_host(apply_all(entries, *host));
  return result;
}

TargetNormalizerRegistry& TargetNormalizerRegistry::global() {
  static TargetNormalizerRegistry registry;
  return registry;
}

}  // namespace tilec::target
