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
//
// Layouts a call needs. Another layer's cooperative tile calls (the CuTe variant's wgmma
// gemm and its copies) may take their shared tiles in a layout of their own: such a call is
// registered (register_shared_layout_call) with, for each tile argument (the load of the
// tile's first element), the argument holding its layout code, a constant, 0 for the plain
// row-major layout. A call lowered with a nonzero code needs that layout; cuda.swizzle_shared
// then places the tile in it: every load and store of the tile takes layout(...).index, the
// code argument of every registered call taking the tile is set to it, and an ldmatrix
// (which reads 16-byte rows) may read it. An access that cannot take it (wider than 16
// bytes) or two calls needing different layouts for one tile are an IRError naming both.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// A layout a registered call needs for one of its tiles.
struct SharedTileLayout {
  int64_t code = 0;
  std::string description;                         // names the layout and the tile's shape
  std::function<ir::Expr(const ir::Expr&)> index;  // flat element -> where it lives
};

// A call registered with no tile_args takes tile addresses that do not depend on the
// layout (a tile's first element, e.g. for an alignment check).
struct SharedLayoutCall {
  std::vector<std::pair<size_t, size_t>> tile_args;  // (tile argument, its code argument)
  // The layout that `code` (nonzero) names for tile argument `tile_arg` of `call` (whose
  // other arguments give the tile's shape); nullopt when the code is not one.
  std::function<std::optional<SharedTileLayout>(const ir::CallNode& call, size_t tile_arg,
                                                int64_t code)>
      layout;
};

// Idempotent per name (the last registration wins) and thread-safe; registrations stay for
// the process.
void register_shared_layout_call(const std::string& call_name, SharedLayoutCall call);

inline constexpr const char* kSharedSwizzleAttrPrefix = "tilec.shared_swizzle.";

ir::IRModule plan_shared_swizzle(const ir::IRModule& mod);
transform::Pass plan_shared_swizzle_pass();  // "cuda.plan_shared_swizzle"
ir::IRModule swizzle_shared(const ir::IRModule& mod);
transform::Pass swizzle_shared_pass();  // "cuda.swizzle_shared"

}  // namespace tilec::cuda
