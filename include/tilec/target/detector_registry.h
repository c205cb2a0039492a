// TargetDetectorRegistry: named detectors asked which target this machine offers, higher
// priority first and, within one priority, in registration order (so accelerators are asked
// before the host CPU whichever module registers first). A detector answers a Target,
// answers nothing (with a reason, when it is an explained detector) or throws; detect()
// returns the first answer, and when none comes its error lists every detector tried with
// its reason. Thread-safe; detectors run unlocked. The process-wide registry starts empty:
// each backend module registers the detector of the kinds it owns (tilec::initialize()).
#pragma once

#include "tilec/target/callable_identity.h"
#include "tilec/target/named_registry.h"
#include "tilec/target/target.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::target {

// nullopt means "no such target here".
// Detector functions are shared by copies and compared by identity
// (target/callable_identity.h).
using TargetDetectorFunc = SharedFunction<std::optional<Target>()>;

struct Detection {
  std::optional<Target> target;
  std::string reason;  // why there is no target, when `target` is empty
};
using ExplainedTargetDetectorFunc = SharedFunction<Detection()>;

// Detection priorities: a device is preferred to the host it is attached to, and the
// host CPU is the fallback that always answers.
inline constexpr int kAcceleratorDetectorPriority = 100;
inline constexpr int kHostDetectorPriority = 0;

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

  // A taken name is rejected unless `override` (which keeps the detector's place among
  // those of its priority) or the registration is identical (the very same callable object,
  // target/callable_identity.h, and priority). True when the name was new (so remove() undoes it).
  bool add(std::string name, TargetDetectorFunc fn, bool override = false,
           int priority = kHostDetectorPriority);
  bool add_explained(std::string name, ExplainedTargetDetectorFunc fn, bool override = false,
                     int priority = kHostDetectorPriority);
  bool remove(std::string_view name);  // false when no such detector

  std::vector<std::string> names() const;         // in the order detection asks them
  std::vector<DetectorReport> probe_all() const;  // asks every detector, stops at none
  Target detect() const;

  // The process-wide registry (empty until modules register their detectors).
  static TargetDetectorRegistry& global();

 private:
  struct Entry;
  bool insert(Entry entry, bool override);

  detail::NamedRegistry<Entry> entries_;
};

}  // namespace tilec::target
