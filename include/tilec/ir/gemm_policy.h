// T.gemm's `policy=` (TileLang's T.GemmWarpPolicy): how a GPU gemm splits the block's warps
// over the accumulator (Square: balanced, FullRow: all warps along M, FullCol: all along
// N). It never changes what the gemm computes, so passes and targets that do not split
// warps ignore it.
//
// Where it lives. The policy of the k-th T.gemm of a PrimFunc (from 0, in source order:
// pre-order, gemms have no nested statements) is the function attribute
// gemm_policy_attr(k) = "tilec.gemm_policy.<k>", whose string value is "Square",
// "FullRow" or "FullCol"; a gemm without one is Square, TileLang's default. The index, not
// a source place, keys it, so printing and parsing again keeps it: the printer writes it
// back as the gemm's `policy=T.GemmWarpPolicy.X` (as pipeline_schedule.h does for loops).
// It is exact for the function as the front end builds it; a pass that adds, removes or
// reorders gemms must carry the attributes along or drop them.
//
// GemmPolicies reads them for a lowering that rebuilds gemm nodes (operand staging, the
// cp.async pipeline keep a gemm's span, not its node): it finds each gemm's policy by
// index once and by source place afterwards.
#pragma once

#include "tilec/ir/function.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tilec::ir {

enum class GemmWarpPolicy : uint8_t { kSquare, kFullRow, kFullCol };

const char* to_string(GemmWarpPolicy policy);  // "Square", "FullRow", "FullCol"
std::optional<GemmWarpPolicy> parse_gemm_warp_policy(std::string_view name);

std::string gemm_policy_attr(int64_t k);  // "tilec.gemm_policy.<k>"
bool is_gemm_policy_attr(std::string_view key);
// The policy recorded in `attrs` for the k-th gemm (Square when none is).
GemmWarpPolicy gemm_warp_policy(const AttrMap& attrs, int64_t k);

// The policies of the gemms of one function, by source place.
class GemmPolicies {
 public:
  GemmPolicies() = default;
  explicit GemmPolicies(const PrimFunc& fn);
  // Square for a gemm of unknown place, or one at a place no non-default policy names.
  GemmWarpPolicy of(const GemmNode& gemm) const;

 private:
  std::map<std::pair<int, int>, GemmWarpPolicy> by_place_;
};

}  // namespace tilec::ir
