// Vectorized thread splits of T.Parallel nests (and of the copy/fill nests the tile ops
// lower to, fragments' included where their layout allows, see layout_split_vectorized):
// each thread takes `lanes` consecutive elements of the innermost loop per
// step and consecutive threads take consecutive vectors, so a warp's accesses are
// coalesced and each thread's are one wide load/store (gpu.vectorize_lanes turns the
// lane loop into vector moves after flattening).
//
// A nest qualifies when its body reads and writes only global and shared buffers,
// every access is either the same for all lanes or contiguous in the innermost
// variable (unit stride in the last dimension), and every condition (an `if` or the
// T.copy edge masks' `if_then_else`) is monotone in it. The lane count is the
// target's `vector_bytes` over the widest element, halved until it divides the
// innermost extent (at least 2). Alignment of every access's first element to
// lanes * element bytes is proven from shapes, strides and offsets where it can be
// (shared tiles and device buffers start 16-byte aligned: the execution backends
// allocate every device buffer, see docs/semantics.md); otherwise it is checked at run
// time. A vector whose lanes are not all inside the masks, or not aligned, runs the
// original scalar body lane by lane (a scalar tail), so results are unchanged.
#pragma once

#include "tilec/gpu/fragment_layout.h"
#include "tilec/gpu/parallel_nest.h"

#include <optional>

namespace tilec::gpu {

// The split of `nest` (whose body, already rewritten by the SIMT distributor, is `body`)
// over `threads` threads indexed by `tid`, vectorized; nullopt when the nest does not
// qualify or vector_bytes allows fewer than 2 lanes.
std::optional<ir::Stmt> split_nest_vectorized(const ParallelNest& nest, const ir::Stmt& body,
                                              const ir::Var& tid, int64_t threads,
                                              int64_t vector_bytes, const ir::Span& span);

// The split of `nest` by a fragment's `layout` (the distributor's layout-led split: thread
// tid runs its registers, `body` addresses the split fragments' registers at `reg`;
// `dims`, per nest variable, the fragment dimension it indexes or -1), vectorized where
// the layout gives each thread runs of consecutive registers holding consecutive
// elements of the fragment's last dimension, which the innermost variable indexes (the
// micro-tile accumulator, simt_gemm.h): the memory side of each run moves as one vector,
// the registers lane by lane, with the masks and alignment rules above. nullopt when
// the layout has no such runs or the nest does not qualify.
std::optional<ir::Stmt> layout_split_vectorized(const ParallelNest& nest, const ir::Stmt& body,
                                                const FragmentLayout& layout,
                                                const std::vector<int>& dims, const ir::Var& tid,
                                                const ir::Var& reg, int64_t vector_bytes,
                                                const ir::Span& span);

}  // namespace tilec::gpu
