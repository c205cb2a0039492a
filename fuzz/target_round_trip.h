// The property both target fuzzers check on every target they manage to read: its
// canonical string, its JSON object and its JSON text each read back to an equal target
// with an equal hash. A violation aborts (a libFuzzer finding) naming the broken form.
#pragma once

#include "tilec/target/target.h"

#include <cstdio>
#include <cstdlib>

namespace tilec::fuzz {

[[noreturn]] inline void finding(const char* what, const target::Target& target) {
  std::fprintf(stderr, "finding: %s for target '%s'\n", what, target.str().c_str());
  std::abort();
}

// Throws (also a finding: the fuzzers let it escape) when a form does not read back.
inline void check_target_round_trips(const target::Target& target) {
  using target::Target;
  Target reparsed = Target::parse(target.str());
  if (!(reparsed == target)) finding("parse(str()) differs", target);
  if (reparsed.hash() != target.hash()) finding("equal targets hash differently", target);
  if (!(Target::from_json(target.to_json()) == target)) {
    finding("from_json(to_json()) differs", target);
  }
  if (!(Target::parse(target.to_json().dump()) == target)) {
    finding("parse(to_json().dump()) differs", target);
  }
}

}  // namespace tilec::fuzz
