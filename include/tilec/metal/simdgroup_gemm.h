// Metal's simdgroup-matrix T.gemm ("metal.gemm_simdgroup", registered by the metal module
// above simt.gemm), as TileLang's metal_fragment_to_simdgroup does it: float16 x float16 or
// float32 x float32 operands in threadgroup memory (2-D tiles, or one stage of a staged
// tile), a float32 accumulator fragment, K a multiple of 8, and whole 32-lane simdgroups that
// tile the accumulator in 8x8 matrices (groups_m x groups_n simdgroups, each a WM x WN tile,
// split as T.gemm's policy= asks). Each simdgroup keeps its (WM / 8) x (WN / 8)
// simdgroup_float8x8 accumulators for the whole K loop: per 8-wide k step it loads its A and
// B matrices with simdgroup_load (transposed where the tile is k-major for B or m-major for
// A) and issues simdgroup_multiply_accumulate per (A, B) pair. Other gemms (bfloat16, mixed
// dtypes, float16 accumulators, operands outside threadgroup memory, shapes the simdgroups
// cannot tile) decline to simt.gemm.
//
// The accumulator's registers are the simdgroup matrices' thread_elements(): Apple's 8x8
// layout gives lane l the elements (row, col) and (row, col + 1) with
// row = 4 (l / 16) + (l / 2) % 4 and col = 4 ((l / 8) % 2) + 2 (l % 2); the fragment layout
// (simdgroup_accumulator_layout) says so, so element-wise code, reductions and copies of the
// accumulator follow it. The lowered IR calls one helper per gemm, which CodeGenMetal prints
// as a template call (its definition is in the MSL preamble):
//   tilec_simdgroup_gemm(acc[0], A[first element], lda, B[first element], ldb, k_steps,
//                        MT, NT, transpose_a, transpose_b)
// -> tilec_simdgroup_gemm<T, MT, NT, TA, TB>(&acc[0], &A[..], lda, &B[..], ldb, k_steps).
#pragma once

#include "tilec/gpu/fragment_layout.h"
#include "tilec/ir/gemm_policy.h"
#include "tilec/transform/tile_op_impl.h"

#include <optional>

namespace tilec::metal {

inline constexpr const char* kSimdgroupGemm = "tilec_simdgroup_gemm";

// groups_m x groups_n simdgroups over the accumulator, each a WM x WN tile of 8x8 matrices.
struct SimdgroupTiling {
  int64_t groups_m = 1, groups_n = 1;
  int64_t WM = 8, WN = 8;
  int64_t tiles_m() const { return WM / 8; }
  int64_t tiles_n() const { return WN / 8; }
};

// The split of num_threads / 32 simdgroups over an M x N accumulator: FullRow as many
// simdgroups along M as tile it, FullCol along N, Square the split whose per-simdgroup tile is
// closest to square; only splits that tile M x N exactly in 8x8 matrices. nullopt when the
// threads are not whole simdgroups or no split tiles the accumulator.
std::optional<SimdgroupTiling> choose_simdgroup_tiling(
    int64_t M, int64_t N, int64_t num_threads,
    ir::GemmWarpPolicy policy = ir::GemmWarpPolicy::kSquare);

// Element (i, j) in simdgroup (i / WM) * groups_n + j / WN, at Apple's lane of (i % 8, j % 8),
// register 2 * (its 8x8 matrix within the simdgroup's, row-major) + j % 2.
gpu::FragmentLayout simdgroup_accumulator_layout(int64_t M, int64_t N,
                                                 const SimdgroupTiling& tiling);

transform::TileOpImpl simdgroup_gemm_impl();

}  // namespace tilec::metal
