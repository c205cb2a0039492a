// Small text helpers shared by the target layer's error messages and parsers
// (internal to src/target).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tilec::target::detail {

// [A-Za-z_][A-Za-z0-9_]*: the shape of kind and attribute names, so they print unquoted.
bool is_identifier(std::string_view text);

// The separators of the target text form.
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Double quotes around `text`, with '"' and '\' escaped by a backslash.
std::string quote(std::string_view text);

// Wraps in double quotes and escapes '"' and '\' when the text is empty or contains
// whitespace, quotes or backslashes; otherwise returns it unchanged.
std::string quote_if_needed(std::string_view text);

// Offset of the first byte that is not part of well-formed UTF-8, or npos. Targets are
// exchanged as JSON, which only carries UTF-8, so target text must be UTF-8 too.
size_t first_invalid_utf8(std::string_view text);

// Text for a message: printable ASCII kept, everything else as \xHH, cut after `limit`.
std::string printable(std::string_view text, size_t limit = 80);

}  // namespace tilec::target::detail
