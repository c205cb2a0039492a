#include "text_util.h"

#include <cstdint>

#include <fmt/format.h>

#include <algorithm>

namespace tilec::target::detail {
namespace {

bool needs_quotes(std::string_view text) {
  if (text.empty()) return true;
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return c == '"' || c == '\\' || is_space(c); });
}

}  // namespace

bool is_identifier(std::string_view text) {
  if (text.empty()) return false;
  auto is_start = [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  };
  auto is_rest = [&](char c) { return is_start(c) || (c >= '0' && c <= '9'); };
  return is_start(text[0]) && std::all_of(text.begin() + 1, text.end(), is_rest);
}

std::string quote_if_needed(std::string_view text) {
  return needs_quotes(text) ? quote(text) : std::string(text);
}

std::string quote(std::string_view text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

std::string printable(std::string_view text, size_t limit) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= limit) {
      out += "...";
      break;
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

size_t first_invalid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto byte = static_cast<unsigned char>(text[i]);
    size_t length = byte < 0x80           ? 1
                    : (byte >> 5) == 0x6  ? 2
                    : (byte >> 4) == 0xE  ? 3
                    : (byte >> 3) == 0x1E ? 4
                                          : 0;
    if (length == 0 || i + length > text.size()) return i;
    uint32_t code = length == 1 ? byte : byte & (0x7F >> length);
    for (size_t k = 1; k < length; ++k) {
      auto next = static_cast<unsigned char>(text[i + k]);
      if ((next >> 6) != 0x2) return i;
      code = (code << 6) | (next & 0x3F);
    }
    // Overlong encodings, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    static constexpr uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[length] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) {
      return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

}  // namespace tilec::target::detail
