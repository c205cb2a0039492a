// libFuzzer target for Target::from_json on arbitrary JSON text. Input that is not JSON
// (any nlohmann error) or not a valid target (TargetError) is fine; a target that was
// read must round-trip through str() and to_json(). Anything else is a finding.
#include "tilec/target/target.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

using tilec::target::Target;
using tilec::target::TargetError;

namespace {

[[noreturn]] void finding(const char* what, const Target& target) {
  std::fprintf(stderr, "finding: %s for target '%s'\n", what, target.str().c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {  // not JSON, or a number out of range
    return 0;
  }
  std::optional<Target> target;
  try {
    target = Target::from_json(object);
  } catch (const TargetError&) {
    return 0;
  }
  if (!(Target::parse(target->str()) == *target)) finding("parse(str()) differs", *target);
  if (!(Target::from_json(target->to_json()) == *target)) {
    finding("from_json(to_json()) differs", *target);
  }
  if (!(Target::parse(target->to_json().dump()) == *target)) {
    finding("parse(to_json().dump()) differs", *target);
  }
  return 0;
}
