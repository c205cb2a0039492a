// Front end for kernels written in TileLang's DSL (the subset of issue 3): reads a
// `.py` kernel file into an IRModule. Anything outside the subset is rejected with a
// SourceError (file:line:col, the line, a caret and what is supported instead); no
// input crashes or hangs the parser (nesting is bounded, every loop consumes input).
#pragma once

#include "tilec/ir/function.h"
#include "tilec/ir/source_error.h"

#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace tilec::ir {

struct ParseOptions {
  std::string filename = "<string>";
  // -D NAME=VALUE: replaces the value of module constant NAME (an int, float or
  // dtype string; a T.symbolic name becomes that constant). Naming a constant the
  // file does not define is an error listing the ones it does define.
  // Factory parameters (docs/semantics.md, "Factories") are set the same way.
  std::map<std::string, std::string> defines;
};

// `entry` (--entry NAME): lower only the kernel or factory NAME. Without it every kernel
// is lowered, unless the file has a factory and more than one candidate (an error
// listing them). A factory's kernel is named after the factory.
IRModule parse_kernel_source(std::string_view source, const ParseOptions& options = {},
                             const std::string& entry = "");
// Reads `path` (IRError if unreadable) and parses it with the path as filename.
IRModule parse_kernel_file(const std::string& path, std::map<std::string, std::string> defines = {},
                           std::string entry = "");

// Splits a command-line define "NAME=VALUE"; throws IRError when it has no '=' or
// NAME is not an identifier.
std::pair<std::string, std::string> parse_define(std::string_view text);

}  // namespace tilec::ir
