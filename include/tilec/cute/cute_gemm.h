// The CuTe variant's own T.gemm (selected by the target key `cute`, above the SIMT
// gemm): a gemm of two whole shared tiles into a whole float32 fragment becomes one
// cute::gemm with a TiledMMA: float16 or bfloat16 operands on SM80's tensor-core atom
// (SM80_16x8x16_F32F16F16F32_TN / ..._F32BF16BF16F32_TN, a grid of warps over the
// tile; the same atom on sm_90), float32 operands on UniversalFMA (a grid of
// threads). The accumulator fragment is laid out as the TiledMMA's C partition
// (thr_mma.partition_C), so the T.Parallel loops over it (T.clear, element-wise
// updates, the copy out) run over each thread's registers at the coordinates CuTe's
// C partition gives (tilec's closed form of it, cute_accumulator_layout, checked against
// CuTe's own partition_C by tests/cute). Shapes the TiledMMA cannot tile exactly (M, N not
// multiples of the atom grid, K of the atom's K, threads not whole warps), other
// dtypes and operands that are fragments or regions go to the cuda backend's gemms.
// The lowered IR holds the gemm as a call of tilec_cute_gemm, which CodeGenCuTe prints
// as a call of its CuTe helper. It ranks above the cuda backend's own tensor-core gemm
// (cuda.gemm_mma), which also accepts the variant's targets.
#pragma once

#include "tilec/gpu/fragment_layout.h"
#include "tilec/transform/tile_op_impl.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec::cute {

inline constexpr const char* kCuteGemmCall = "tilec_cute_gemm";  // (A, B, C, plan ints...)
inline constexpr int kCuteTileOpPriority = transform::kBackendTileOpPriority + 10;

struct CuteGemmPlan {
  enum Atom : int { kSm80F16 = 0, kSm80BF16 = 1, kFma = 2 };
  Atom atom = kFma;
  int64_t m = 0, n = 0, k = 0;  // the tile
  int64_t wm = 1, wn = 1;       // atoms along M and N: warps (tensor cores) or threads (FMA)
  bool transpose_a = false, transpose_b = false;

  const char* atom_name() const;  // "SM80_16x8x16_F32F16F16F32_TN", ...
  std::string describe() const;   // "cute TiledMMA SM80_16x8x16_F32F16F16F32_TN, 2x2 warps"
  int64_t registers(int64_t num_threads) const { return m * n / num_threads; }
};

// The plan for `gemm` in a block of num_threads, or nullopt when CuTe does not take it.
std::optional<CuteGemmPlan> plan_cute_gemm(const ir::GemmNode& gemm, int64_t num_threads);

// The TiledMMA's C partition of the M x N accumulator as a fragment layout: thread
// t = lane + 32 * (wm + WM * wn) (FMA: t = tm + TM * tn), register r = the col-major
// index of ((V), MMA_M, MMA_N), where SM80_16x8_Row puts value v of lane l of a 16x8
// atom at (l / 4 + 8 * (v / 2), 2 * (l % 4) + v % 2).
gpu::FragmentLayout cute_accumulator_layout(const CuteGemmPlan& plan, int64_t num_threads);

// "cute.gemm_tiled_mma" for targets with the key `cute` (kCuteTileOpPriority).
std::vector<transform::TileOpImpl> cute_tile_op_impls();

}  // namespace tilec::cute
