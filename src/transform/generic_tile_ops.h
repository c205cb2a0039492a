// The shared tile-op implementations ("generic.copy", ... "generic.scheduled_loop"; every
// target, kGenericTileOpPriority), defined with the loop nests in lower_tile_ops.cc and
// registered by the tile-op registry when it is first used (internal to src/transform).
#pragma once

#include "tilec/transform/tile_op_impl.h"

#include <vector>

namespace tilec::transform::detail {

std::vector<TileOpImpl> generic_tile_op_impls();

}  // namespace tilec::transform::detail
