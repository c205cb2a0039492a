#include "tilec/codegen/bounds_record.h"

#include <fmt/format.h>

namespace tilec::codegen {

namespace {

std::string printf_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%') out += '%';
    out += c;
  }
  return out;
}

// printf conversions for n int64 index values: "%lld, %lld, ...".
std::string int64_conversions(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i ? ", %lld" : "%lld";
  return out;
}

}  // namespace

std::string bounds_violation_format(const ir::BoundsCall& violation) {
  std::string where = violation.span.known()
                          ? fmt::format("line {}:{}: ", violation.span.line, violation.span.col)
                          : std::string();
  return fmt::format(
      "{}{} '{}' at index [{}] is outside its shape [{}] (found by the bounds-checked build); "
      "guard the access with an if, or use T.copy, which masks elements outside the tensor",
      where, violation.access == ir::BoundsAccess::kStore ? "store" : "load",
      printf_literal(violation.buffer), int64_conversions(violation.indices.size()),
      int64_conversions(violation.shape.size()));
}

}  // namespace tilec::codegen
