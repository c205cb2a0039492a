// libFuzzer target for Target::from_json on arbitrary JSON text. Input that is not JSON
// (any nlohmann error) or not a valid target (TargetError) is fine; a target that was
// read must round-trip (target_round_trip.h). Anything else is a finding.
#include "target_round_trip.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {  // not JSON, or a number out of range
    return 0;
  }
  std::optional<tilec::target::Target> target;
  try {
    target = tilec::target::Target::from_json(object);
  } catch (const tilec::target::TargetError&) {
    return 0;
  }
  tilec::fuzz::check_target_round_trips(*target);
  return 0;
}
