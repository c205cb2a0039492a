// TileLang's warp shuffles in the tile IR: T.shfl_xor / T.shfl_down / T.shfl_up(value,
// delta, width=32) and T.shfl_sync(value, src_lane, width=32) yield the value `value` has in
// another thread of the caller's group of `width` consecutive threads of the block (flat
// thread index x + X·(y + Y·z); the caller's lane is that index % width): lane ^ delta,
// lane + delta, lane - delta or src_lane % width. A source lane outside the group or the
// block yields the caller's own value (CUDA's rule for shfl_down/shfl_up). Every thread of
// the block must evaluate the shuffle (it is a synchronisation point, like a barrier).
// IR: an intrinsic CallNode named "shfl_xor", "shfl_down", "shfl_up" or "shfl_sync" with
// args {value, lane argument, width}, of value's dtype; call() builds it too, so mutators
// rebuild it. transform::lower_warp_shuffles gives it its meaning on every target.
#pragma once

#include "tilec/ir/expr.h"

namespace tilec::ir {

bool is_warp_shuffle_name(const std::string& name);  // shfl_xor, shfl_down, shfl_up, shfl_sync
// Throws IRError for an unknown name, a non-integer lane argument or a width that is not a
// constant from 1 to 1024.
Expr warp_shuffle(const std::string& name, Expr value, Expr lane, Expr width, Span span = {});
const CallNode* as_warp_shuffle(const Expr& e);  // the shuffle that is `e`, else nullptr

}  // namespace tilec::ir
