// The shared-memory tiles the CuTe variant's helpers take as a CuTe tensor with a static
// layout (row-major, or the GMMA layout cuda.swizzle_shared placed the tile in,
// gmma_smem_layout.h): a whole 2-D buffer of constant shape, or one stage of a tile the
// cp.async pipeline staged (cp_async.h: a leading stage index, then the whole of the last
// two dims).
#pragma once

#include "tilec/ir/stmt.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tilec::cute {

struct SharedTile {
  ir::Expr first;              // a load of its first element (the codegen passes its address)
  std::vector<int64_t> shape;  // rows, cols
};

// The tile `region` names, or nullopt for any other region (a sub-tile, symbolic shape).
std::optional<SharedTile> shared_tile(const ir::TileRegion& region);

// The buffer's shape when every extent is a constant.
std::optional<std::vector<int64_t>> constant_shape(const ir::Buffer& buffer);

}  // namespace tilec::cute
