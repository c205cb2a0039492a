// format_kernel_source: the canonical layout of a kernel file, as `tilec fmt` prints
// it. It is a formatter, not a printer of the IR: every token is kept as the user
// spelled it (module constants stay names, strings keep their quotes), comments and
// the blank-line structure are kept (runs of blank lines become at most two), and
// only layout changes: four spaces per indentation level, one space around binary
// operators and after commas, none inside brackets, keyword arguments as `k=v`,
// continuation lines inside brackets indented by eight. The result parses to a
// structurally equal module, and formatting it again changes nothing. A -D define
// replaces the value of that module constant's assignment.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace tilec::ir {

// Throws SourceError on text the lexer rejects (the caller should also parse the
// file to report syntax and define errors first).
std::string format_kernel_source(std::string_view source, const std::string& filename,
                                 const std::map<std::string, std::string>& defines = {});

}  // namespace tilec::ir
