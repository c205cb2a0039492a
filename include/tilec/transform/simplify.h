// simplify: folds constants (wrapping integers to their dtype's width; floats only
// in float32/float64 where the host's arithmetic is the dtype's), drops identities
// (x + 0, x * 1, x // 1), decides comparisons that integer bounds prove, and removes
// dead branches and empty loops. It never changes a result: anything unproven stays.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

#include <optional>
#include <unordered_map>

namespace tilec::transform {

// Inclusive integer bounds; an absent side is unbounded.
struct IntBounds {
  std::optional<int64_t> min, max;
  bool non_negative() const { return min && *min >= 0; }
};
using VarBounds = std::unordered_map<const ir::VarNode*, IntBounds>;

// Bounds of an integer expression given bounds of its variables (unknown vars are
// unbounded). Arithmetic that could overflow int64 gives unbounded results.
IntBounds bounds_of(const ir::Expr& e, const VarBounds& vars);
// Bounds of a loop's variable over its iterations ([begin, end) upward, (end, begin]
// downward), given bounds of the variables its bounds use.
IntBounds loop_var_bounds(const ir::ForNode& loop, const VarBounds& vars);

ir::Expr simplify(const ir::Expr& e, const VarBounds& vars = {});
// Tracks loop variables (and T.Kernel block variables) bounds while simplifying.
ir::Stmt simplify(const ir::Stmt& s, const VarBounds& vars = {});
// Symbolic shape variables of buffer parameters are known to be non-negative.
ir::IRModule simplify(const ir::IRModule& mod);
Pass simplify_pass();  // "tilec.simplify"

}  // namespace tilec::transform
