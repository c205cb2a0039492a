// Transposing copies in register tiles. The cpu gemm packs a transposed B into the
// k x columns panel its micro-kernel reads (gemm_microkernel.cc); copied element by
// element, that copy is bound by one store per element and cost about a quarter of the
// 1024^3 transposed-B GEMM. transpose_copies (a pass of the cpu pipeline, right after
// lower_tile_ops) finds loop nests
//   for r in [r0, r1): for c in [c0, c1): dst[r, c] = src[..., c + p, ..., r + q]
// copying float32 (dst a 2-D tile; src's last index moving with r, one other with c, both
// by one; contiguous row-major buffers) and rewrites them into transpose_tile calls over
// the whole lanes x lanes tiles, the rows and columns left over copied as before.
// lanes: one vector register of float32 on the target (vector_unit_for), at most 16.
// The gemm lowering itself keeps the element copy, which the interpreter runs.
// transpose_tile(src, dst, lanes, src_stride, dst_stride) is
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

#include "tilec/ir/stmt.h"
#include "tilec/transform/pass.h"

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
std::pair<std::vector<int>, std::vector<int>> transpose_shuffle_masks(int64_t lanes, int64_t half);

ir::Stmt transpose_copies(const ir::Stmt& body, int64_t lanes);
transform::Pass transpose_copies_pass();  // "cpu.transpose_copies"

}  // namespace tilec::cpu
