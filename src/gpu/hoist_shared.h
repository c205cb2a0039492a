// Hoisting a kernel's shared tiles to its top (gpu.lower_simt): every shared allocation
// of the per-thread body is removed and collected, in order, for the caller to allocate
// around the whole kernel. A tile of the same dtype and constant shape as an earlier one
// that is free where it is allocated -- whose scope has ended (a tile op's scratch, such
// as a reduction's staged copy), or which is dead there (every use before it and none in
// a loop around it that began after the earlier tile's allocation) -- takes the earlier
// tile's storage: the body then names the earlier buffer, so the barrier planner (which
// runs later) orders both uses as accesses of one tile. Throws the SIMT lowering's
// located error for a tile of symbolic shape.
#pragma once

#include "tilec/ir/stmt.h"

#include <string>
#include <vector>

namespace tilec::gpu {

struct HoistedShared {
  ir::Stmt body;                   // without its shared allocations
  std::vector<ir::Buffer> shared;  // to allocate around the kernel, outermost first
};

HoistedShared hoist_shared(const ir::Stmt& body, const std::string& function);

}  // namespace tilec::gpu
