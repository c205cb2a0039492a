// The SIMT model's tile-op implementations, for every target with the key `gpu`
// (priority kSimtTileOpPriority: above the generic ones, below a backend's own, so CUDA's
// tensor-core gemm overrides simt.gemm). They emit T.Parallel nests that gpu.lower_simt
// then splits over the threads by the fragment layouts:
// - simt.gemm: register-blocked micro-tiles of the accumulator (simt_gemm.h);
// - simt.reduce: across threads through shared memory: the source staged into a shared
//   tile, reduced along the reduced dimension by a tree of log2(extent) halving steps,
//   each split over the threads (one thread per output element, serially, when the
//   extent is symbolic), then received by every thread (a reduction result is replicated);
// - simt.pipelined_serial: T.Pipelined as a serial loop (no asynchronous copies here).
#pragma once

#include "tilec/transform/tile_op_impl.h"

#include <vector>

namespace tilec::gpu {

inline constexpr int kSimtTileOpPriority = 50;

bool is_gpu_target(const target::Target& target);  // the key `gpu`

std::vector<transform::TileOpImpl> simt_tile_op_impls();

}  // namespace tilec::gpu
