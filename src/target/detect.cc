#include "tilec/target/detect.h"

#include "text_util.h"

#include <fmt/format.h>

#include <cstdlib>

namespace tilec::target {
namespace {

std::string_view trim(std::string_view text) {
  size_t start = 0;
  while (start < text.size() && detail::is_space(text[start])) ++start;
  size_t end = text.size();
  while (end > start && detail::is_space(text[end - 1])) --end;
  return text.substr(start, end - start);
}

}  // namespace

void register_target_detector(std::string name, TargetDetectorFunc fn, bool override,
                              int priority) {
  TargetDetectorRegistry::global().add(std::move(name), std::move(fn), override, priority);
}

void register_explained_target_detector(std::string name, ExplainedTargetDetectorFunc fn,
                                        bool override, int priority) {
  TargetDetectorRegistry::global().add_explained(std::move(name), std::move(fn), override,
                                                 priority);
}

void register_target_normalizer(std::string name, TargetNormalizerFunc fn, bool override) {
  TargetNormalizerRegistry::global().add(std::move(name), std::move(fn), override);
}

bool unregister_target_detector(std::string_view name) {
  return TargetDetectorRegistry::global().remove(name);
}

bool unregister_target_normalizer(std::string_view name) {
  return TargetNormalizerRegistry::global().remove(name);
}

std::vector<std::string> list_target_detectors() {
  return TargetDetectorRegistry::global().names();
}

std::vector<std::string> list_target_normalizers() {
  return TargetNormalizerRegistry::global().names();
}

std::vector<DetectorReport> probe_target_detectors() {
  return TargetDetectorRegistry::global().probe_all();
}

Target auto_detect_target() {
  return TargetDetectorRegistry::global().detect();
}

Target normalize_target(const Target& target) {
  return TargetNormalizerRegistry::global().normalize(target);
}

Target determine_target(std::string_view spec) {
  if (trim(spec) != "auto") return normalize_target(Target::parse(spec));
  if (auto scoped = current_target()) return normalize_target(*scoped);
  const char* from_env = std::getenv(kTargetEnvVar);
  if (from_env && !trim(from_env).empty() && trim(from_env) != "auto") {
    try {
      return normalize_target(Target::parse(from_env));
    } catch (const TargetError& e) {
      throw TargetError(
          fmt::format("${} does not hold a usable target: {}; fix it, or unset it "
                      "to detect the target",
                      kTargetEnvVar, e.what()));
    }
  }
  return normalize_target(auto_detect_target());
}

}  // namespace tilec::target
