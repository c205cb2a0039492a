// libFuzzer target for Target::parse on arbitrary text. Any input must either parse and
// round-trip (target_round_trip.h), or throw TargetError. Any other exception, crash or
// sanitizer report is a finding.
#include "target_round_trip.h"

#include <cstdint>
#include <optional>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<tilec::target::Target> target;
  try {
    target = tilec::target::Target::parse(text);
  } catch (const tilec::target::TargetError&) {
    return 0;
  }
  tilec::fuzz::check_target_round_trips(*target);
  return 0;
}
