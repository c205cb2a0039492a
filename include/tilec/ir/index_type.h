// The one integer-width rule (docs/semantics.md, "Integer widths"): a loop variable,
// block index or thread index has a type that holds every value it takes. A loop's
// variable is int32 when its bounds are int32 values and it provably never leaves the
// int32 range (counting the step past the bound); int64 otherwise. A block index is
// int32 because every target refuses a grid extent past kMaxGridExtent.
#pragma once

#include "tilec/ir/expr.h"

#include <cstdint>
#include <optional>

namespace tilec::ir {

// The largest grid extent along one axis any target accepts (2^31 - 1): a block index
// is int32 on every backend, so a larger extent would wrap it.
inline constexpr int64_t kMaxGridExtent = 2147483647;

// The dtype a loop variable running from `begin` to `end` (exclusive) by `step` needs.
DataType loop_var_dtype(const Expr& begin, const Expr& end, int64_t step);

// Whether a loop variable of dtype `var` holds every value of that loop (same rule).
bool loop_var_holds(DataType var, const Expr& begin, const Expr& end, int64_t step);

}  // namespace tilec::ir
