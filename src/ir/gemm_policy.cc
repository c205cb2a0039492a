#include "tilec/ir/gemm_policy.h"

#include "tilec/ir/visitor.h"

#include <fmt/format.h>

namespace tilec::ir {

namespace {
constexpr std::string_view kPrefix = "tilec.gemm_policy.";
}  // namespace

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

std::string gemm_policy_attr(int64_t k) {
  return fmt::format("{}{}", kPrefix, k);
}

bool is_gemm_policy_attr(std::string_view key) {
  return key.substr(0, kPrefix.size()) == kPrefix;
}

GemmWarpPolicy gemm_warp_policy(const AttrMap& attrs, int64_t k) {
  auto it = attrs.find(gemm_policy_attr(k));
  if (it == attrs.end()) return GemmWarpPolicy::kSquare;
  const auto* text = std::get_if<std::string>(&it->second);
  std::optional<GemmWarpPolicy> p = text ? parse_gemm_warp_policy(*text) : std::nullopt;
  return p ? *p : GemmWarpPolicy::kSquare;
}

GemmPolicies::GemmPolicies(const PrimFunc& fn) {
  // Gemms are leaves, so the post-order visit meets them in source order.
  std::map<std::pair<int, int>, std::optional<GemmWarpPolicy>> seen;
  int64_t k = 0;
  post_order_visit(fn->body, [&](const Stmt* s, const Expr*) {
    const auto* g = s ? s->as<GemmNode>() : nullptr;
    if (!g) return;
    GemmWarpPolicy p = gemm_warp_policy(fn->attrs, k++);
    if (!g->span.known()) return;
    auto [it, fresh] = seen.try_emplace({g->span.line, g->span.col}, p);
    // Two gemms at one place (a macro expanded twice) with different policies cannot be
    // told apart after a rebuild: both get the default. The policy only moves work
    // between warps, never what the gemm computes.
    if (!fresh && it->second != p) it->second = std::nullopt;
  });
  for (const auto& [place, p] : seen)
    if (p && *p != GemmWarpPolicy::kSquare) by_place_[place] = *p;
}

GemmWarpPolicy GemmPolicies::of(const GemmNode& gemm) const {
  auto it = by_place_.find({gemm.span.line, gemm.span.col});
  return it == by_place_.end() ? GemmWarpPolicy::kSquare : it->second;
}

}  // namespace tilec::ir
