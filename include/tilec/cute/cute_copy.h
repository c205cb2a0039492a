// The CuTe variant's own T.copy (selected by the target key `cute`): a copy between a global
// tensor and a shared tile (global -> shared and shared -> global, same dtype) becomes one
// cute::copy of a TiledCopy, make_tiled_copy(Copy_Atom<atom>, thread layout, value layout):
//
// - the atom moves `vector` contiguous elements: UniversalCopy<uint128_t> (16 bytes) where
//   the tile's columns, the global row stride and the column start allow it, else the
//   widest of 8, 4, 2 bytes or one element that they allow (what is known at compile time
//   picks the width; what is only known at run time is checked, below);
// - inside a cp.async commit group (T.Pipelined on sm_80+, cp_async.h) the copy is issued
//   asynchronously: SM80_CP_ASYNC_CACHEGLOBAL<uint128_t> for 16 bytes,
//   SM80_CP_ASYNC_CACHEALWAYS for 8 and 4 (cuda.lower_cp_async switches the call's form);
// - thread layout: thread_rows x thread_cols threads, row-major, each moving one atom per
//   step; thread_cols divides cols / vector, thread_rows divides rows; threads of the block
//   beyond thread_rows * thread_cols take no part.
//
// Edge tiles are explicit: the cute::copy runs only when the whole tile lies inside the
// global tensor and its pointers are aligned to the atom's width (a block-uniform runtime
// condition when not known at compile time); otherwise the same T.copy runs as the generic
// SIMT loop, which reads zero outside the source and skips writes outside the destination
// (docs/semantics.md). No predicated atoms.
//
// Barriers: the barrier planner sees a call's tile arguments as reads only, so the lowering
// brackets the cute::copy with shared-memory barriers (before: earlier readers of the
// destination are done; after: its writes are visible to later readers).
//
// Other copies (fragments, shared -> shared, dtype conversions, sub-tiles, a global region
// whose last two dims are not the tile's) go to the generic copy. The lowered IR holds the
// copy as a call of tilec_cute_copy, which CodeGenCuTe prints as tilec_cute::copy_tile.
#pragma once

#include "tilec/ir/stmt.h"
#include "tilec/transform/tile_op_impl.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tilec::cute {

// (&src[first], src row stride, &dst[first], dst row stride, rows, cols, vector,
//  thread_rows, thread_cols, src_shared, dst_shared, src layout, dst layout, async); a
// layout is the code of a shared side's GMMA layout (gmma_smem_layout.h), 0 row-major.
inline constexpr const char* kCuteCopyCall = "tilec_cute_copy";
inline constexpr size_t kCuteCopyLayoutArgSrc = 11, kCuteCopyLayoutArgDst = 12;
// (&element, bytes): whether the address is a multiple of bytes.
inline constexpr const char* kCuteAlignedCall = "tilec_cute_aligned";

struct CuteCopyPlan {
  bool to_shared = true;  // global -> shared; false: shared -> global
  int64_t rows = 0, cols = 0;
  int64_t element_bytes = 0;
  int64_t vector = 1;  // elements per atom
  int64_t thread_rows = 1, thread_cols = 1;
  int64_t atom_bytes() const { return vector * element_bytes; }
  // "UniversalCopy<uint128_t>", or with async "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>".
  std::string atom_name(bool async) const;
  // "cute TiledCopy UniversalCopy<uint128_t>, 16x8 threads x 1x8 values"
  std::string describe() const;
};

// The planned copy of `copy` in a block of num_threads, and its runtime condition (true when
// the tile is known to be whole and aligned), or nullopt when CuTe does not take it.
struct PlannedCuteCopy {
  CuteCopyPlan plan;
  ir::Expr src_first, dst_first;    // loads of the first elements
  ir::Expr src_stride, dst_stride;  // row strides in elements
  ir::Expr condition;
};
std::optional<PlannedCuteCopy> plan_cute_copy(const ir::CopyNode& copy, int64_t num_threads);

// "cute.copy_tiled" for targets with the key `cute` (kCuteTileOpPriority).
transform::TileOpImpl cute_copy_impl();

// Registers the copy call's asynchronous form with cuda.lower_cp_async, and the call as one
// that takes its shared tile in the tile's layout with cuda.swizzle_shared (idempotent).
void register_cute_copy_calls();

}  // namespace tilec::cute
