// T.gemm's `policy=` (TileLang's T.GemmWarpPolicy): how a GPU gemm splits the block's warps
// over the accumulator (Square: balanced, FullRow: all warps along M, FullCol: all along
// N). It never changes what the gemm computes, so passes and targets that do not split
// warps ignore it.
//
// Where it lives. The policy of the T.gemm written at source place (line, col) of a
// PrimFunc is the function attribute gemm_policy_attr(span) =
// "tilec.gemm_policy.<line>:<col>", whose string value is "Square", "FullRow" or
// "FullCol"; a gemm without one (or with no known place) is Square, TileLang's default. A
// gemm keeps its span through the passes that rebuild it (staging, the cp.async pipeline),
// and a macro expanded twice repeats its policy, so the place identifies it.
#pragma once

#include "tilec/ir/function.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilec::ir {

enum class GemmWarpPolicy : uint8_t { kSquare, kFullRow, kFullCol };

const char* to_string(GemmWarpPolicy policy);  // "Square", "FullRow", "FullCol"
std::optional<GemmWarpPolicy> parse_gemm_warp_policy(std::string_view name);

// "tilec.gemm_policy.<line>:<col>"; empty for an unknown span.
std::string gemm_policy_attr(const Span& span);
// The policy recorded in `attrs` for the gemm at `span` (Square when none is).
GemmWarpPolicy gemm_warp_policy(const AttrMap& attrs, const Span& span);

}  // namespace tilec::ir
