// libFuzzer target for Target::parse on arbitrary text. Any input must either parse, with
// its canonical form and its JSON form reading back to an equal target with an equal hash,
// or throw TargetError. Any other exception, crash or sanitizer report is a finding.
#include "tilec/target/target.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

using tilec::target::Target;
using tilec::target::TargetError;

namespace {

[[noreturn]] void finding(const char* what, const Target& target) {
  std::fprintf(stderr, "finding: %s for target '%s'\n", what, target.str().c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<Target> target;
  try {
    target = Target::parse(text);
  } catch (const TargetError&) {
    return 0;
  }
  // Throws (a finding) if the canonical form does not parse.
  Target reparsed = Target::parse(target->str());
  if (!(reparsed == *target)) finding("parse(str()) differs", *target);
  if (reparsed.hash() != target->hash()) finding("equal targets hash differently", *target);
  if (!(Target::from_json(target->to_json()) == *target)) {
    finding("from_json(to_json()) differs", *target);
  }
  return 0;
}
