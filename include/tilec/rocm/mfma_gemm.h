// The MFMA T.gemm ("rocm.gemm_mfma", priority above simt.gemm): float16 x float16, or
// bfloat16 x bfloat16 where the `_1k` form exists, into a float32 accumulator fragment, on
// AMD's matrix cores (gfx908/gfx90a/gfx94x, wavefront 64). The block's wavefronts tile the
// accumulator (waves_m x waves_n, each a WM x WN tile of 16x16 MFMA tiles, split as T.gemm's
// policy= says); per 16-wide k step each lane loads its four A and four B elements from
// the operand tiles and every (A, B) tile pair issues one
//   v_mfma_f32_16x16x16f16 (bf16: v_mfma_f32_16x16x16bf16_1k).
// The layouts are AMD's for these instructions, the ones TileLang's mfma_layout.py
// documents (lane l, element q in 0..3):
//   A (16 x 16, m x k): row l % 16, column 4 (l / 16) + q
//   B (16 x 16, k x n): row 4 (l / 16) + q, column l % 16
//   C (16 x 16, m x n): row 4 (l / 16) + q, column l % 16
// The accumulator gets layout C (mfma_accumulator_layout), which element-wise code,
// reductions and copies of it follow. Other gemms (other dtypes, operands in registers,
// K not a multiple of 16, shapes the wavefronts cannot tile, archs without MFMA or a
// wavefront other than 64) decline to simt.gemm.
//
// The generated IR calls (CodeGenHIP defines them on __builtin_amdgcn_mfma_*; the
// emulator per the layouts above); an argument that is a load stands for its address:
//   tilec_mfma_f32_16x16x16_f16(&c[4t], &a[4i], &b[4j])   c[4t..4t+3] += A x B
//   tilec_mfma_f32_16x16x16_bf16(...)
#pragma once

#include "tilec/gpu/fragment_layout.h"
#include "tilec/ir/gemm_policy.h"
#include "tilec/transform/tile_op_impl.h"

#include <optional>

namespace tilec::rocm {

inline constexpr const char* kMfmaPrefix = "tilec_mfma_";
inline constexpr int64_t kMfmaWavefront = 64;

// waves_m x waves_n wavefronts over an M x N accumulator, each a WM x WN tile.
struct WaveTiling {
  int64_t waves_m = 1, waves_n = 1;
  int64_t WM = 16, WN = 16;
  int64_t tiles_m() const { return WM / 16; }
  int64_t tiles_n() const { return WN / 16; }
};

// Among the splits of num_threads / 64 wavefronts that tile M x N exactly in 16x16 tiles:
// FullRow the one with the most wavefronts along M, FullCol along N, Square the one whose
// per-wavefront tile is closest to M / N in shape (TileLang's partition rules). nullopt
// when the threads are not whole wavefronts or no split tiles the accumulator.
std::optional<WaveTiling> choose_wave_tiling(int64_t M, int64_t N, int64_t num_threads,
                                             ir::GemmWarpPolicy policy);

// Element (i, j) in wavefront (i / WM) * waves_n + j / WN, lane (j % 16) + 16 ((i % 16) / 4),
// register 4 * (its 16x16 tile within the wavefront's) + i % 4.
gpu::FragmentLayout mfma_accumulator_layout(int64_t M, int64_t N, const WaveTiling& tiling);

transform::TileOpImpl mfma_gemm_impl();

}  // namespace tilec::rocm
