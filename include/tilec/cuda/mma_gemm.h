// CUDA's tensor-core T.gemm ("cuda.gemm_mma", the cuda gemm implementation, priority above
// simt.gemm): float16 x float16 or bfloat16 x bfloat16 operands in shared memory, a float32
// accumulator fragment, on sm_80 and newer. The block's warps tile the accumulator
// (warps_m x warps_n, each warp a WM x WN tile of m16n8 mma tiles, split as T.gemm's
// policy= says, choose_warp_tiling); per 16-wide
// k step each warp loads its A tiles with ldmatrix.x4 and its B tiles with ldmatrix.x2
// (.trans where the tile in shared memory is k-major for B or m-major for A) and issues
// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 per (A, B) tile pair.
// The accumulator gets the m16n8 C/D layout (mma_accumulator_layout), which element-wise
// code, reductions and copies of it follow. Other gemms (float32, shapes the warps cannot
// tile, operands outside shared memory, K not a multiple of 16, < sm_80) decline to
// simt.gemm.
//
// The generated IR calls the device functions below (CodeGenCUDA defines them with
// inline PTX); an argument that is a buffer load stands for that element's address.
//   tilec_ldmatrix_x4(&regs[r], &tile[row address])   ldmatrix...x4.shared.b16 -> regs[r..r+3]
//   tilec_ldmatrix_x4_trans, tilec_ldmatrix_x2, tilec_ldmatrix_x2_trans
//   tilec_mma_m16n8k16_f16(&c[r], &a[r], &b[r])         c[r..r+3] += A x B  (bf16: _bf16)
#pragma once

#include "tilec/gpu/fragment_layout.h"
#include "tilec/ir/gemm_policy.h"
#include "tilec/transform/tile_op_impl.h"

#include <optional>
#include <string>

namespace tilec::cuda {

inline constexpr const char* kLdmatrixPrefix = "tilec_ldmatrix_";
inline constexpr const char* kMmaPrefix = "tilec_mma_";

// The warp tiling of an M x N accumulator: warps_m x warps_n warps, each a WM x WN tile
// made of (WM / 16) x (WN / 8) m16n8 tiles.
struct WarpTiling {
  int64_t warps_m = 1, warps_n = 1;
  int64_t WM = 16, WN = 8;
  int64_t tiles_m() const { return WM / 16; }
  int64_t tiles_n() const { return WN / 8; }
};

// The split TileLang's ComputeWarpPartition (mma.sync) picks for `policy`: FullRow puts
// every warp along M (as many as M / 16 allows, the rest along N), FullCol every warp along
// N (up to N / 8, the rest along M), Square the split whose per-warp tile is closest to M / N
// in shape, among those that tile M x N exactly. nullopt when the threads are not whole
// warps or the policy's split does not tile the accumulator exactly in m16n8 tiles (the
// gemm then goes to simt.gemm).
std::optional<WarpTiling> choose_warp_tiling(
    int64_t M, int64_t N, int64_t num_threads,
    ir::GemmWarpPolicy policy = ir::GemmWarpPolicy::kSquare);

// Element (i, j) of the accumulator in warp (i / WM) * warps_n + j / WN, lane
// (i % 8) * 4 + (j % 8) / 2, register 4 * (its m16n8 tile within the warp's) + c_k, where
// c_k is the PTX ISA's accumulator element index: k = 2 * ((i % 16) / 8) + j % 2.
gpu::FragmentLayout mma_accumulator_layout(int64_t M, int64_t N, const WarpTiling& tiling);

// The SM version of a cuda target's -arch (sm_80 -> 80; 80 when it has none).
int cuda_sm_version(const target::Target& target);

transform::TileOpImpl mma_gemm_impl();

}  // namespace tilec::cuda
