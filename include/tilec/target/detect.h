// TileLang's tilelang.backend.target in C++: the process-wide detector and normalizer
// registries, and determine_target, which turns "auto" into the scoped current target,
// else $TILEC_TARGET, else the first detector's answer, and normalizes every result.
#pragma once

#include "tilec/target/detector_registry.h"
#include "tilec/target/llvm_support.h"
#include "tilec/target/normalizer_registry.h"
#include "tilec/target/scoped_target.h"
#include "tilec/target/target.h"

#include <string>
#include <string_view>
#include <vector>

namespace tilec::target {

inline constexpr const char* kTargetEnvVar = "TILEC_TARGET";

// `priority` orders detection (kAcceleratorDetectorPriority for a device, asked before the
// host CPU's kHostDetectorPriority); a backend module registers its detectors through
// backend::register_module_target_detector, which undoes them when its init fails.
void register_target_detector(std::string name, TargetDetectorFunc fn, bool override = false,
                              int priority = kHostDetectorPriority);
// For detectors that can say why they found nothing (shown by `tilec targets`).
void register_explained_target_detector(std::string name, ExplainedTargetDetectorFunc fn,
                                        bool override = false,
                                        int priority = kHostDetectorPriority);
void register_target_normalizer(std::string name, TargetNormalizerFunc fn, bool override = false);
bool unregister_target_detector(std::string_view name);
bool unregister_target_normalizer(std::string_view name);

std::vector<std::string> list_target_detectors();  // in detection order
std::vector<std::string> list_target_normalizers();
std::vector<DetectorReport> probe_target_detectors();

Target auto_detect_target();
Target normalize_target(const Target& target);

// "auto" -> current_target(), else $TILEC_TARGET, else auto_detect_target(); any other
// spec is parsed (string or JSON). The result is normalized either way.
Target determine_target(std::string_view spec = "auto");

}  // namespace tilec::target
