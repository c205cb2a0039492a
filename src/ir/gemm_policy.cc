#include "tilec/ir/gemm_policy.h"

#include <fmt/format.h>

namespace tilec::ir {

const char* to_string(GemmWarpPolicy policy) {
  switch (policy) {
    case GemmWarpPolicy::kSquare:
      return "Square";
    case GemmWarpPolicy::kFullRow:
      return "FullRow";
    case GemmWarpPolicy::kFullCol:
      return "FullCol";
  }
  return "Square";
}

std::optional<GemmWarpPolicy> parse_gemm_warp_policy(std::string_view name) {
  for (GemmWarpPolicy p :
       {GemmWarpPolicy::kSquare, GemmWarpPolicy::kFullRow, GemmWarpPolicy::kFullCol})
    if (name == to_string(p)) return p;
  return std::nullopt;
}

std::string gemm_policy_attr(const Span& span) {
  if (!span.known()) return "";
  return fmt::format("tilec.gemm_policy.{}:{}", span.line, span.col);
}

GemmWarpPolicy gemm_warp_policy(const AttrMap& attrs, const Span& span) {
  std::string key = gemm_policy_attr(span);
  if (key.empty()) return GemmWarpPolicy::kSquare;
  auto it = attrs.find(key);
  if (it == attrs.end()) return GemmWarpPolicy::kSquare;
  const auto* text = std::get_if<std::string>(&it->second);
  std::optional<GemmWarpPolicy> p = text ? parse_gemm_warp_policy(*text) : std::nullopt;
  return p ? *p : GemmWarpPolicy::kSquare;
}

}  // namespace tilec::ir
