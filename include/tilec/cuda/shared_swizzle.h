// XOR-swizzled shared tiles for the tensor-core gemm (cuda.gemm_mma), as TileLang's
// makeGemmABLayout / makeFull/Half/QuarterBankSwizzleLayout lay them out.
//
// Why. ldmatrix reads a shared tile in phases of 8 lanes x 16 bytes: 8 consecutive rows of
// the tile at one 16-byte chunk. In a row-major tile whose rows are a multiple of 128 bytes
// those 8 chunks sit in the same 4 of the 32 banks (an 8-way conflict). Swizzled, element
// (row, col) of a tile with W elements per row lives at row * W + col with col's 16-byte
// chunk XOR-ed by a function of the row:
//   rows of a multiple of 128 bytes: chunk ^= row % 8          (full bank, Swizzle<3,3,3>)
//   rows of a multiple of  64 bytes: chunk ^= (row % 8) / 2    (half bank)
//   rows of a multiple of  32 bytes: chunk ^= (row % 8) / 4    (quarter bank)
// so a phase's 8 rows hit 8 distinct chunk positions of the 128-byte bank window. The XOR
// only permutes 16-byte chunks within a row, so a 16-byte-aligned vector access of at most
// 16 bytes stays one contiguous access (cp.async and vectorized copies keep working). A
// tile staged by the cp.async pipeline (leading stage dims) is swizzled by its flat row
// (flat / W), the same bijection on every stage.
//
// Where. Two passes of the cuda pipeline:
//   cuda.plan_shared_swizzle (tile IR, before gpu.lower_simt) records the row extent W of
//     every shared tile that a T.gemm reads as an operand, as the function attribute
//     "tilec.shared_swizzle.<tile name>" = W (a name used with two row extents gets none);
//   cuda.swizzle_shared (per-thread code, after gpu.vectorize_lanes) swizzles the tiles
//     among those that an ldmatrix reads (the tensor-core gemm chose them), rewriting every
//     load and store of the tile, scalar or vector, and drops the attributes.
// A tile whose rows are not a multiple of 32 bytes keeps the plain layout (TileLang pads
// those instead). T.annotate_layout is a hint the front end drops (docs/semantics.md), so
// no explicit layout is overridden.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

#include <cstdint>
#include <optional>

namespace tilec::cuda {

struct SharedSwizzle {
  int64_t row_elems = 0;    // W: elements per row of the tile
  int64_t chunk_elems = 0;  // elements per 16-byte chunk
  int bits = 0;             // 3: full bank, 2: half bank, 1: quarter bank
};

// The swizzle of a tile with `row_elems` elements of `elem_bytes` bytes per row; nullopt
// when its rows are not a multiple of 32 bytes or its elements do not divide 16 bytes.
std::optional<SharedSwizzle> choose_shared_swizzle(int64_t row_elems, int64_t elem_bytes);

// Where flat element `flat` (row-major) of a swizzled tile is stored; a bijection on
// every row. swizzled_index builds the same as IR (int32/int64 index arithmetic).
int64_t swizzled_offset(const SharedSwizzle& s, int64_t flat);
ir::Expr swizzled_index(const SharedSwizzle& s, const ir::Expr& flat);

inline constexpr const char* kSharedSwizzleAttrPrefix = "tilec.shared_swizzle.";

ir::IRModule plan_shared_swizzle(const ir::IRModule& mod);
transform::Pass plan_shared_swizzle_pass();  // "cuda.plan_shared_swizzle"
ir::IRModule swizzle_shared(const ir::IRModule& mod);
transform::Pass swizzle_shared_pass();  // "cuda.swizzle_shared"

}  // namespace tilec::cuda
