#include "tilec/target/detector_registry.h"

#include "text_util.h"
#include "tilec/target/callable_identity.h"

#include <fmt/format.h>

namespace tilec::target {

struct TargetDetectorRegistry::Entry {
  std::string name;
  TargetDetectorFunc plain;               // set for detectors registered without reasons
  ExplainedTargetDetectorFunc explained;  // set otherwise
  int priority = kHostDetectorPriority;

  bool same_as(const Entry& other) const {
    return priority == other.priority &&
           static_cast<bool>(plain) == static_cast<bool>(other.plain) &&
           (plain ? detail::same_callable(plain, other.plain)
                  : detail::same_callable(explained, other.explained));
  }

  DetectorReport run() const {
    DetectorReport report{name, std::nullopt, "", false};
    try {
      if (plain) {
        report.target = plain();
        if (!report.target) report.reason = "detected no target on this machine";
      } else {
        Detection detection = explained();
        report.target = std::move(detection.target);
        if (!report.target) {
          report.reason = detection.reason.empty() ? "detected no target on this machine"
                                                   : std::move(detection.reason);
        }
      }
    } catch (const std::exception& e) {
      report.failed = true;
      report.reason = fmt::format("failed: {}", e.what());
    } catch (...) {
      report.failed = true;
      report.reason = "failed with an exception that is not a std::exception";
    }
    return report;
  }
};

TargetDetectorRegistry::TargetDetectorRegistry() = default;
TargetDetectorRegistry::~TargetDetectorRegistry() = default;

bool TargetDetectorRegistry::add(std::string name, TargetDetectorFunc fn, bool override,
                                 int priority) {
  if (!fn) {
    throw TargetError(fmt::format("cannot register target detector '{}': its function is empty",
                                  detail::printable(name)));
  }
  return insert(Entry{std::move(name), std::move(fn), {}, priority}, override);
}

bool TargetDetectorRegistry::add_explained(std::string name, ExplainedTargetDetectorFunc fn,
                                           bool override, int priority) {
  if (!fn) {
    throw TargetError(fmt::format("cannot register target detector '{}': its function is empty",
                                  detail::printable(name)));
  }
  return insert(Entry{std::move(name), {}, std::move(fn), priority}, override);
}

bool TargetDetectorRegistry::insert(Entry entry, bool override) {
  if (entry.name.empty()) {
    throw TargetError(
        "cannot register a target detector with an empty name; name it after what "
        "it detects, e.g. \"cuda\"");
  }
  return entries_.insert(std::move(entry), override, "target detector", "detectors");
}

bool TargetDetectorRegistry::remove(std::string_view name) {
  return entries_.remove(name);
}

std::vector<std::string> TargetDetectorRegistry::names() const {
  return entries_.names();
}

std::vector<DetectorReport> TargetDetectorRegistry::probe_all() const {
  std::vector<DetectorReport> reports;
  for (const auto& entry : entries_.snapshot()) reports.push_back(entry->run());
  return reports;
}

Target TargetDetectorRegistry::detect() const {
  auto entries = entries_.snapshot();
  if (entries.empty()) {
    throw TargetError(
        "cannot detect a target: no target detectors are registered (backend modules register "
        "them; call tilec::initialize() first); pass a target explicitly (e.g. 'c') or register "
        "a detector with register_target_detector");
  }
  std::vector<std::string> tried;
  for (const auto& entry : entries) {
    DetectorReport report = entry->run();
    if (report.target) return *std::move(report.target);
    tried.push_back(fmt::format("  {}: {}", report.name, report.reason));
  }
  throw TargetError(fmt::format(
      "no target detector found a target; tried, in order:\n{}\npass a target explicitly (e.g. "
      "'c') or set TILEC_TARGET",
      fmt::join(tried, "\n")));
}

TargetDetectorRegistry& TargetDetectorRegistry::global() {
  static TargetDetectorRegistry registry;
  return registry;
}

}  // namespace tilec::target
