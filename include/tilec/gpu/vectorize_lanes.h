// gpu.vectorize_lanes: turns the lane loops of vectorized splits (ForKind::kVectorized
// loops of constant extent, see vector_split.h), once buffers are flat, into vector
// moves. A plain copy between buffers of one dtype becomes one move
// `dst[d:d+n] = src[s:s+n]` (ir::vector_load stored whole); any other body reads each
// contiguous source with one move into a private register array, computes lane by
// lane in an unrolled loop, and writes each destination back with one move. Accesses
// that are the same for every lane stay scalar. A lane loop this cannot express (an
// access that is not unit-stride in the lane, a buffer read and written at different
// offsets) stays a scalar loop, unrolled, with the same results.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

namespace tilec::gpu {

ir::Stmt vectorize_lanes(const ir::Stmt& body);
ir::IRModule vectorize_lanes(const ir::IRModule& mod);
transform::Pass vectorize_lanes_pass();  // "gpu.vectorize_lanes"

}  // namespace tilec::gpu
