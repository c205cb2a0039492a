// The canonical shared-memory layouts that SM90's warpgroup MMA (wgmma, CuTe's GMMA atoms)
// reads its operands in, as CuTe builds them: tile_to_shape(GMMA::Layout_<major>_<swizzle>_Atom<T>,
// shape), the atom chosen like CUTLASS's ss_smem_selector (the widest swizzle whose atom
// divides the tile).
//
// A tilec shared tile is stored row-major, rows x cols. For the gemm it is K-major when its
// columns run along K (A as M x K, B transposed as N x K) and MN-major when its columns run
// along M or N (A transposed as K x M, B as K x N). Either way the atom is 8 stored rows x
// `atom_cols` stored columns, row-major inside, atom_cols = (16 bytes / element) << bits;
// the atoms are ordered down the MN dimension first (K-major: down the rows; MN-major:
// along the columns). Element offset (row, col), before the swizzle:
//   (row % 8) * atom_cols + col % atom_cols + (row / 8) * row_step + (col / atom_cols) * col_step
//   K-major:  row_step = 8 * atom_cols, col_step = rows * atom_cols
//   MN-major: row_step = 8 * cols,      col_step = 8 * atom_cols
// then CuTe's Swizzle<bits, 4, 3> on the byte address: the 16-byte chunk index (address bits
// 4..4+bits) is XOR-ed with address bits 7..7+bits. The swizzle permutes whole 16-byte
// chunks, so an aligned access of at most 16 bytes stays one contiguous access. Tiles
// staged by the cp.async pipeline repeat the layout per stage. The hardware applies the
// swizzle to the absolute shared address: the tile must start aligned to its atom
// (kGmmaTileAlignment covers every atom).
#pragma once

#include "tilec/cuda/shared_swizzle.h"
#include "tilec/ir/expr.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tilec::cute {

inline constexpr int64_t kGmmaTileAlignment = 1024;  // bytes: the 128-byte swizzle's atom
// (flat, code, rows, cols, element bytes)
inline constexpr const char* kGmmaSmemOffsetCall = "tilec_cute_smem_offset";

struct GmmaSmemLayout {
  enum Major : int { kK = 0, kMN = 1 };
  Major major = kK;
  int bits = 0;  // 0: interleaved (no swizzle), 1: 32-byte, 2: 64-byte, 3: 128-byte swizzle
  int64_t rows = 0, cols = 0;  // the stored tile (one stage)
  int64_t element_bytes = 2;

  int64_t atom_cols() const { return (16 / element_bytes) << bits; }
  // The code CodeGenCuTe's helpers take: 1 + 4 * major + bits (0 is the plain row-major tile).
  int code() const { return 1 + 4 * int(major) + bits; }
  // "GMMA::Layout_K_SW128_Atom", "GMMA::Layout_MN_INTER_Atom", ...
  std::string cute_atom() const;
  std::string describe() const;  // "K-major 128-byte swizzled (GMMA::Layout_K_SW128_Atom)"

  // Where flat element `flat` (row-major over stages x rows x cols) lives. index() is the
  // same in IR, in flat's integer type: a call of kGmmaSmemOffsetCall, which CodeGenCuTe
  // prints as its helper tilec_cute::smem_offset<code, rows, cols, bytes>(flat), the same
  // closed form in C++ (checked against CuTe by tests/cute).
  int64_t offset(int64_t flat) const;
  ir::Expr index(const ir::Expr& flat) const;
};

// The layout a rows x cols tile of `element_bytes` elements takes as a GMMA operand of
// `major`, or nullopt when no canonical atom divides it.
std::optional<GmmaSmemLayout> choose_gmma_smem_layout(GmmaSmemLayout::Major major, int64_t rows,
                                                      int64_t cols, int64_t element_bytes);

// The layout a helper code names (code() above) for a rows x cols tile; nullopt for 0.
std::optional<GmmaSmemLayout> gmma_smem_layout_of_code(int64_t code, int64_t rows, int64_t cols,
                                                       int64_t element_bytes);

// The layout a code names as cuda.swizzle_shared places a tile in (what the CuTe calls'
// shared-layout registrations answer); nullopt when the code names no layout of the tile.
std::optional<cuda::SharedTileLayout> gmma_shared_tile_layout(int64_t code, int64_t rows,
                                                              int64_t cols, int64_t element_bytes);

}  // namespace tilec::cute
