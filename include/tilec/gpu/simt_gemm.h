// The SIMT model's T.gemm ("simt.gemm"), for every target with the key `gpu` unless a
// backend registers a faster one (CUDA's tensor cores). Register-blocked: the block's
// threads form a tm x tn grid over the accumulator fragment, and each thread computes a
// TM x TN micro-tile of it (TM = M / tm, TN = N / tn), its rows strided by tm and its
// columns TN consecutive ones (thread column tx holds columns tx * TN .. tx * TN + TN - 1),
// so a thread's registers along a row are consecutive elements: copies of C and
// elementwise code over it move TN-element vectors (gpu/vector_split.h), neighbouring
// threads neighbouring vectors. Per k it loads its TM values of A and TN values of B from
// shared memory into registers and updates its TM x TN accumulators: (TM + TN) loads for
// TM * TN multiply-adds, k ascending as the interpreter sums. The accumulator fragment
// gets the matching layout (micro_tile_layout), which every other use of that fragment
// then follows. A gemm whose accumulator is not a whole 2-D fragment, or whose tile
// cannot be split this way (fewer elements than threads, no factorisation of the thread
// count that divides M and N), computes each accumulator element as one dot product in a
// T.Parallel nest over C (the fragment then keeps the cyclic layout).
#pragma once

#include "tilec/gpu/fragment_layout.h"
#include "tilec/transform/tile_op_impl.h"

#include <optional>

namespace tilec::gpu {

// The thread grid and micro-tile of an M x N accumulator over `num_threads` threads.
struct MicroTile {
  int64_t tm = 1, tn = 1;  // threads along M and N (tm * tn = num_threads)
  int64_t TM = 1, TN = 1;  // registers along M and N
};

// The split minimising TM + TN (loads per k), ties to more threads along N; nullopt when
// no split exists.
std::optional<MicroTile> choose_micro_tile(int64_t M, int64_t N, int64_t num_threads);

// Element (i, j) in thread (i % tm) * tn + j / TN, register (i / tm) * TN + j % TN.
FragmentLayout micro_tile_layout(int64_t M, int64_t N, const MicroTile& tile);

transform::TileOpImpl simt_gemm_impl(int priority);

}  // namespace tilec::gpu
