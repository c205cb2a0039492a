// T.use_swizzle(panel_size, order="row"|"column"): TileLang's threadblock rasterization
// (tl::rasterization2DRow / rasterization2DColumn). The block launched at linear index
// L = bx + by * gx computes the tile of a serpentine walk over panels of `panel_size`
// rows (row order) or columns (column order), so consecutive blocks share operand tiles.
// It is a permutation of the grid: a kernel's result does not change, only which block
// computes which tile, on every target (the interpreter, the CPU model, SIMT).
#pragma once

#include "tilec/ir/stmt.h"

#include <cstdint>
#include <functional>

namespace tilec::frontend {

// The front end builds tile IR: its code names the IR's types and factories unqualified.
using namespace ::tilec::ir;

struct BlockSwizzle {
  int64_t panel_size = 1;  // >= 1
  bool column = false;     // order="column"
};

// Builds one binary operation; the front end passes its constant-folding builder, so the
// formula reads (and prints) as if it had been written in the kernel.
using BinaryBuilder = std::function<Expr(BinaryOp, Expr, Expr)>;

// `kernel` with fresh launch indices as its block vars and a body that first binds its
// old block vars (x, y; z unchanged) to the swizzled tile coordinates.
Stmt apply_block_swizzle(const KernelNode& kernel, const BlockSwizzle& swizzle,
                         const BinaryBuilder& op);

}  // namespace tilec::frontend
