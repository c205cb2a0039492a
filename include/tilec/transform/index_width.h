// Index width: which buffers need 64-bit index arithmetic, and the rewrites that
// give it to them. An index must mean its mathematical value, so whenever a flat
// offset can exceed 2^31-1 (a global buffer whose constant element count is that
// large, or whose shape is symbolic and so not proven small) its arithmetic runs
// in int64: the cast is pushed down to the leaves (`(int64)bx * 256 + (int64)i`,
// never `(int64)(bx * 256 + i)`, which would wrap first), and the integer let
// bindings an index is built from are rebound as int64. The decision is explicit
// in the IR, so every code generator prints the same arithmetic.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/ir/stmt.h"

namespace tilec::transform {

// True when some offset into `buffer` may not fit in int32.
bool needs_wide_index(const ir::Buffer& buffer);

// True when any buffer the function's parameters or body use needs a wide index.
bool function_needs_wide_index(const ir::PrimFunc& func);

// `index` computed in int64: integer arithmetic (+ - * // % min max, selects) is
// rebuilt over int64 operands; leaves (variables, loads, calls) are cast.
ir::Expr widen_index(const ir::Expr& index);

// Rebinds every narrower-than-64-bit integer `let` whose value is pure index
// arithmetic (no loads or calls) as int64, with its value widened; uses are
// retyped through the IR's typing rules.
ir::Stmt widen_index_bindings(const ir::Stmt& body);

}  // namespace tilec::transform
