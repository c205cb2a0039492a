// TargetNormalizerRegistry: named rewrites applied, in registration order, to every target
// that determine_target resolves (e.g. filling in an attribute a backend needs). A
// normalizer answers nullopt to leave the target as it is; one that throws is reported by
// name with the target it failed on. Thread-safe; normalizers run unlocked.
#pragma once

#include "tilec/target/callable_identity.h"
#include "tilec/target/named_registry.h"
#include "tilec/target/target.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::target {

// Shared by copies and compared by identity (target/callable_identity.h).
using TargetNormalizerFunc = SharedFunction<std::optional<Target>(const Target&)>;

class TargetNormalizerRegistry {
 public:
  TargetNormalizerRegistry();
  ~TargetNormalizerRegistry();
  TargetNormalizerRegistry(const TargetNormalizerRegistry&) = delete;
  TargetNormalizerRegistry& operator=(const TargetNormalizerRegistry&) = delete;

  // Same naming rules as TargetDetectorRegistry::add.
  void add(std::string name, TargetNormalizerFunc fn, bool override = false);
  bool remove(std::string_view name);
  std::vector<std::string> names() const;

  // Runs every normalizer on the target, then every normalizer on its host, if any.
  Target normalize(const Target& target) const;

  static TargetNormalizerRegistry& global();

 private:
  struct Entry;
  Target apply_all(const std::vector<std::shared_ptr<const Entry>>& entries,
                   const Target& target) const;

  detail::NamedRegistry<Entry> entries_;
};

}  // namespace tilec::target
