// Vector loads: a LoadNode whose dtype has lanes > 1 reads `lanes` consecutive elements
// of a flat (1-D) buffer from its one index on, as one value of dtype buffer->dtype x
// lanes. It is the source half of a vector move: gpu.vectorize_lanes stores it whole
// into another flat buffer of the same dtype (StoreNode{dst, {index}, vector load}), and
// SIMT codegens print the pair as one wide load and one wide store. Mutators keep the
// lanes when they rebuild one.
#pragma once

#include "tilec/ir/stmt.h"

namespace tilec::ir {

Expr vector_load(Buffer buffer, Expr index, int lanes, Span span = {});

}  // namespace tilec::ir
