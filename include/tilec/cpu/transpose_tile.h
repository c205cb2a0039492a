// A square tile transposed in registers, for the cpu gemm's packing of a transposed B
// (gemm_microkernel.cc): the micro-kernel reads B as k x columns, a transposed B is
// stored columns x k, and a scalar copy that turns it around is bound by one store per
// element. transpose_tile(src, dst, lanes, src_stride, dst_stride) is
//   evaluate(call_extern(int32, kTransposeTileFunction,
//                        {src_element, dst_element, lanes, src_stride, dst_stride}))
// with `src_element`/`dst_element` loads of the tiles' first elements (never loaded as
// values: the codegens take their addresses, as for a prefetch) and the row strides in
// elements (constants or expressions). It sets dst[c * dst_stride + r] =
// src[r * src_stride + c] for r, c < lanes: `lanes` vectors are loaded, turned around by
// log2(lanes) rounds of two-vector shuffles (transpose_shuffle_masks; the same masks in
// the C helper and the LLVM codegen), and stored. Elements are 32-bit floats; lanes is a
// power of two from 2 to 16, one vector register of the target.
#pragma once

#include "tilec/ir/expr.h"

#include <optional>
#include <utility>
#include <vector>

namespace tilec::cpu {

inline constexpr const char* kTransposeTileFunction = "tilec_transpose_tile";

ir::Expr transpose_tile(ir::Expr src_element, ir::Expr dst_element, int64_t lanes,
                        ir::Expr src_stride, ir::Expr dst_stride);

struct TransposeTile {
  const ir::LoadNode* src = nullptr;
  const ir::LoadNode* dst = nullptr;
  int64_t lanes = 0;
  ir::Expr src_stride, dst_stride;
};
// The parts of a transpose_tile call, else nullopt.
std::optional<TransposeTile> as_transpose_tile(const ir::CallNode& call);

bool is_transpose_tile_lanes(int64_t lanes);  // a power of two in [2, 16]

// Round `half` (lanes/2, lanes/4, ..., 1) swaps, in each 2*half x 2*half block, the
// upper-right and lower-left half x half blocks: rows i and i + half (i & half == 0)
// become shuffle(row_i, row_{i+half}, first) and shuffle(row_i, row_{i+half}, second),
// index `lanes + c` naming lane c of the second vector. After every round the rows hold
// the transposed tile.
std::pair<std::vector<int>, std::vector<int>> transpose_shuffle_masks(int64_t lanes,
                                                                      int64_t half);

}  // namespace tilec::cpu
