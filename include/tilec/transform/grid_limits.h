// Grid limits (docs/semantics.md "Integer widths"): a T.Kernel whose constant grid
// extent along an axis exceeds the target's max_grid_x / max_grid_y / max_grid_z
// attribute (each target kind declares its own; absent means the int32 block index's
// 2^31 - 1) is a LocatedError naming the extent, the limit, the axis and the line.
// split_host_device_pass runs it before splitting, so every pipeline checks it.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/target/target.h"

namespace tilec::transform {

void check_grid_limits(const ir::IRModule& mod, const target::Target& target);

}  // namespace tilec::transform
