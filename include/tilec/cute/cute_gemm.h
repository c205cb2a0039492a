// The CuTe variant's own T.gemm (selected by the target key `cute`, above the SIMT
// gemm): a gemm of two whole shared tiles into a whole float32 fragment becomes one
// cute::gemm with a TiledMMA: float16 or bfloat16 operands on SM80's tensor-core atom
// (SM80_16x8x16_F32F16F16F32_TN / ..._F32BF16BF16F32_TN, a grid of warps over the
// tile; the same atom on sm_90), float32 operands on UniversalFMA (a grid of
// threads). The accumulator fragment is laid out as the TiledMMA's C partition
// (thr_mma.partition_C), so the T.Parallel loops over it (T.clear, element-wise
// updates, the copy out) run over each thread's registers at the coordinates CuTe's
// identity-tensor partition gives. Shapes the TiledMMA cannot tile exactly (M, N not
// multiples of the atom grid, K of the atom's K, threads not whole warps), other
// dtypes and operands that are fragments or regions go to the SIMT gemm.
// The lowered IR holds the gemm and the coordinates as calls of tilec_cute_* device
// functions, which CodeGenCuTe prints as calls of its CuTe helpers.
#pragma once

#include "tilec/gpu/fragment_layout.h"
#include "tilec/transform/tile_op_impl.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec::cute {

inline constexpr const char* kCuteGemmCall = "tilec_cute_gemm";      // (A, B, C, plan ints...)
inline constexpr const char* kCuteCoordCall = "tilec_cute_c_coord";  // (plan ints, tid, r, dim)

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

// "cute.gemm_tiled_mma" for targets with the key `cute` (priority above the SIMT gemm).
std::vector<transform::TileOpImpl> cute_tile_op_impls();
// "cute.tiled_mma": the accumulator's partition for the gemms plan_cute_gemm takes.
gpu::AccumulatorLayoutProvider cute_accumulator_layout_provider();

}  // namespace tilec::cute
