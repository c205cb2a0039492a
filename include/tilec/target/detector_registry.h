// TargetDetectorRegistry: named detectors asked in registration order which target this
// machine offers. A detector answers a Target, answers nothing (with a reason, when it is
// an explained detector) or throws; detect() returns the first answer, and when none comes
// its error lists every detector tried with its reason. Thread-safe; detectors run unlocked.
#pragma once

#include "tilec/target/named_registry.h"
#include "tilec/target/target.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::target {

// nullopt means "no such target here".
using TargetDetectorFunc = std::function<std::optional<Target>()>;

struct Detection {
  std::optional<Target> target;
  std::string reason;  // why there is no target, when `target` is empty
};
using ExplainedTargetDetectorFunc = std::function<Detection()>;

struct DetectorReport {
  std::string name;
  std::optional<Target> target;  // what it detected, if anything
  std::string reason;            // why it answered nothing, or the error it threw
  bool failed = false;           // true when the detector threw
};

class TargetDetectorRegistry {
 public:
  TargetDetectorRegistry();
  ~TargetDetectorRegistry();
  TargetDetectorRegistry(const TargetDetectorRegistry&) = delete;
  TargetDetectorRegistry& operator=(const TargetDetectorRegistry&) = delete;

  // A taken name is rejected unless `override` (which keeps the detector's position) or
  // the registration is recognisably identical (the same callable, target/callable_identity.h).
  void add(std::string name, TargetDetectorFunc fn, bool override = false);
  void add_explained(std::string name, ExplainedTargetDetectorFunc fn, bool override = false);
  bool remove(std::string_view name);  // false when no such detector

  std::vector<std::string> names() const;         // in the order detection asks them
  std::vector<DetectorReport> probe_all() const;  // asks every detector, stops at none
  Target detect() const;

  // The process-wide registry, holding the built-in "cuda" then "cpu" detectors.
  static TargetDetectorRegistry& global();

 private:
  struct Entry;
  void insert(Entry entry, bool override);

  detail::NamedRegistry<Entry> entries_;
};

}  // namespace tilec::target
