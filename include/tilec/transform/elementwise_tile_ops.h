// The element-wise form of T.copy and T.fill for any target: the loop nests of the shared
// generic implementations (lower_tile_ops.h), T.Parallel loops of loads and stores with
// copy's edge masking (reads outside the source give zero, writes outside the destination
// are dropped) and the conversion to the destination's dtype. For callers that express a
// tile op through its element accesses before any target is chosen, such as the front
// end's tile operations on views (T.reshape / T.view). Bad operands throw IRError.
#pragma once

#include "tilec/ir/stmt.h"

namespace tilec::transform {

ir::Stmt elementwise_copy(const ir::CopyNode& op);
ir::Stmt elementwise_fill(const ir::FillNode& op);

}  // namespace tilec::transform
