// The T.* constructs the front end accepts or refuses, as its construct table holds them
// (src/frontend/constructs/): for `tilec check --list`, documentation and tests.
#pragma once

#include <string>
#include <vector>

namespace tilec::ir {

struct LanguageConstruct {
  std::string name;       // "copy" (written T.copy); a name ending in '*' is a prefix
  std::string role;       // "statement", "value", "allocation", "loop", "with frame", "hint",
                          // "module-level declaration" or "refused construct"
  std::string family;     // the family file: "tile_ops", "atomics", ...
  std::string signature;  // "T.copy(src, dst, coalesced_width=None, ...)"
  bool is_value = false;  // also usable in an expression (T.atomic_add returns the old value)
};

// Every row, in table order (families in the order of construct.h).
std::vector<LanguageConstruct> list_language_constructs();

}  // namespace tilec::ir
