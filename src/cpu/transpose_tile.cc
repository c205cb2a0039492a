#include "tilec/cpu/transpose_tile.h"

#include "tilec/ir/expr.h"

namespace tilec::cpu {

using namespace ir;

Expr transpose_tile(Expr src_element, Expr dst_element, int64_t lanes, Expr src_stride,
                    Expr dst_stride) {
  return call_extern(DataType::Int32(), kTransposeTileFunction,
                     {std::move(src_element), std::move(dst_element),
                      make_int(lanes, DataType::Int64()), std::move(src_stride),
                      std::move(dst_stride)});
}

bool is_transpose_tile_lanes(int64_t lanes) {
  return lanes >= 2 && lanes <= 16 && (lanes & (lanes - 1)) == 0;
}

std::optional<TransposeTile> as_transpose_tile(const CallNode& c) {
  if (c.call_kind != CallKind::kExtern || c.name != kTransposeTileFunction || c.args.size() != 5)
    return std::nullopt;
  TransposeTile t;
  t.src = c.args[0].as<LoadNode>();
  t.dst = c.args[1].as<LoadNode>();
  const int64_t* lanes = as_const_int(c.args[2]);
  if (!t.src || !t.dst || !lanes || !is_transpose_tile_lanes(*lanes)) return std::nullopt;
  t.lanes = *lanes;
  t.src_stride = c.args[3];
  t.dst_stride = c.args[4];
  return t;
}

std::pair<std::vector<int>, std::vector<int>> transpose_shuffle_masks(int64_t lanes,
                                                                      int64_t half) {
  std::vector<int> first, second;
  const int n = int(lanes), h = int(half);
  for (int c = 0; c < n; ++c) {
    // Row i keeps its columns without the `half` bit and takes row i+half's from
    // `half` lower; row i+half takes row i's from `half` higher and keeps its own.
    first.push_back((c & h) ? n + c - h : c);
    second.push_back((c & h) ? n + c : c + h);
  }
  return {first, second};
}

}  // namespace tilec::cpu
