#include "tilec/target/normalizer_registry.h"

#include "callable_identity.h"
#include "text_util.h"

#include <fmt/format.h>

#include <algorithm>

namespace tilec::target {

struct TargetNormalizerRegistry::Entry {
  std::string name;
  TargetNormalizerFunc fn;
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
  auto published = std::make_shared<const Entry>(Entry{std::move(name), std::move(fn)});
  std::lock_guard lock(mutex_);
  auto found = std::find_if(entries_.begin(), entries_.end(), [&](const auto& existing) {
    return existing->name == published->name;
  });
  if (found == entries_.end()) {
    entries_.push_back(std::move(published));
    return;
  }
  if (detail::same_callable((*found)->fn, published->fn)) return;
  if (!override) {
    std::vector<std::string> taken;
    for (const auto& existing : entries_) taken.push_back(existing->name);
    throw TargetError(fmt::format(
        "target normalizer '{}' is already registered (normalizers: {}); pass override=true to "
        "replace it, or choose another name",
        published->name, fmt::join(taken, ", ")));
  }
  *found = std::move(published);
}

bool TargetNormalizerRegistry::remove(std::string_view name) {
  std::lock_guard lock(mutex_);
  auto found = std::find_if(entries_.begin(), entries_.end(),
                            [&](const auto& existing) { return existing->name == name; });
  if (found == entries_.end()) return false;
  entries_.erase(found);
  return true;
}

std::vector<std::shared_ptr<const TargetNormalizerRegistry::Entry>>
TargetNormalizerRegistry::snapshot() const {
  std::lock_guard lock(mutex_);
  return entries_;
}

std::vector<std::string> TargetNormalizerRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& entry : snapshot()) names.push_back(entry->name);
  return names;
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
  auto entries = snapshot();
  Target result = apply_all(entries, target);
  if (auto host = result.host()) result = result.with_host(apply_all(entries, *host));
  return result;
}

TargetNormalizerRegistry& TargetNormalizerRegistry::global() {
  static TargetNormalizerRegistry registry;
  return registry;
}

}  // namespace tilec::target
