// The CuTe variant's own T.gemm (selected by the target key `cute`, above the SIMT
// gemm): a gemm of two whole shared tiles into a whole float32 fragment becomes one
// cute::gemm with a TiledMMA:
// - float16 or bfloat16 operands on sm_90 (sm_90a), when the block is whole warpgroups
//   and the tile fits them: SM90's warpgroup MMA, GMMA atoms SM90_64xNx16_F32F16F16_SS /
//   ..._F32BF16BF16_SS over a grid of warpgroups (64 rows each, N the widest atom that
//   divides the warpgroup's columns), both operands read by wgmma straight from shared
//   memory. Its tiles take GMMA's canonical layouts (gmma_smem_layout.h), placed by
//   cuda.swizzle_shared (the gemm call is a registered shared-layout call), and the
//   kernel compiles for sm_90a. A tile keeps the layout of the first GMMA gemm reading it
//   (gpu::SimtContext::claim_shared_layouts); a later gemm needing another takes SM80's
//   atom, which reads its tiles in whatever layout they have;
// - float16 or bfloat16 operands otherwise: SM80's tensor-core atom
//   (SM80_16x8x16_F32F16F16F32_TN / ..._F32BF16BF16F32_TN, a grid of warps over the
//   tile);
// - float32 operands on UniversalFMA (a grid of threads).
// The accumulator fragment is laid out as the TiledMMA's C partition
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

#include "tilec/cute/gmma_smem_layout.h"
#include "tilec/gpu/fragment_layout.h"
#include "tilec/transform/tile_op_impl.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec::cute {

// (&A[first], &B[first], &C[0], atom, wm, wn, m, n, k, transpose_a, transpose_b, clear,
//  atom_n, layout code of A, layout code of B)
inline constexpr const char* kCuteGemmCall = "tilec_cute_gemm";
inline constexpr size_t kCuteGemmLayoutArgA = 13, kCuteGemmLayoutArgB = 14;
inline constexpr int kCuteTileOpPriority = transform::kBackendTileOpPriority + 10;

struct CuteGemmPlan {
  enum Atom : int { kSm80F16 = 0, kSm80BF16 = 1, kFma = 2, kSm90F16 = 3, kSm90BF16 = 4 };
  Atom atom = kFma;
  int64_t m = 0, n = 0, k = 0;  // the tile
  // Atoms along M and N: warpgroups (GMMA), warps (SM80 tensor cores) or threads (FMA).
  int64_t wm = 1, wn = 1;
  int64_t atom_n = 8;  // the GMMA atom's N (64 x atom_n x 16); 8 for SM80's 16x8x16
  bool transpose_a = false, transpose_b = false;
  // GMMA: the layouts wgmma reads A and B in.
  std::optional<GmmaSmemLayout> layout_a, layout_b;

  bool gmma() const { return atom == kSm90F16 || atom == kSm90BF16; }
  // "SM80_16x8x16_F32F16F16F32_TN", "SM90_64x64x16_F32F16F16_SS<GMMA::Major::K, ...>", ...
  std::string atom_name() const;
  // "cute TiledMMA SM80_16x8x16_F32F16F16F32_TN over a 2x2 grid of warps"
  std::string describe() const;
  int64_t registers(int64_t num_threads) const { return m * n / num_threads; }
  // One atom's C tile: atom_rows() x atom_cols() elements over atom_threads() threads.
  int64_t atom_rows() const;
  int64_t atom_cols() const;
  int64_t atom_threads() const;
};

// Whether `arch` (the target's -arch) has SM90's warpgroup MMA: sm_90 and sm_90a.
bool has_gmma(const std::string& arch);

// The plan for `gemm` in a block of num_threads on a target of `arch`, or nullopt when
// CuTe does not take it.
std::optional<CuteGemmPlan> plan_cute_gemm(const ir::GemmNode& gemm, int64_t num_threads,
                                           const std::string& arch);

// The TiledMMA's C partition of the M x N accumulator as a fragment layout: thread
// t = lane + T * (wm + WM * wn) (T threads per atom: 128 GMMA, 32 SM80, FMA 1),
// register r = the col-major index of ((V), MMA_M, MMA_N), where GMMA's CLayout_64xN puts
// value v of thread l of a 64 x N atom at
//   (16 * (l / 32) + (l % 32) / 4 + 8 * ((v / 2) % 2), 2 * (l % 4) + v % 2 + 8 * (v / 4))
// and SM80_16x8_Row is the same on one warp and N = 8.
gpu::FragmentLayout cute_accumulator_layout(const CuteGemmPlan& plan, int64_t num_threads);

// Registers the gemm call with cuda.swizzle_shared as one that needs its GMMA tiles in the
// layouts its code arguments name (idempotent).
void register_cute_gemm_layouts();

// "cute.gemm_tiled_mma" for targets with the key `cute` (kCuteTileOpPriority).
std::vector<transform::TileOpImpl> cute_tile_op_impls();

}  // namespace tilec::cute
