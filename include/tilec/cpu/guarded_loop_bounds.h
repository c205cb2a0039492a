// Folding a loop's guard into its bounds. A vectorized loop whose whole body is one
// `if` without else, its condition a conjunction of comparisons linear in the loop
// variable with coefficient +1 or -1 (lets inside the loop seen through), as every
// partial tile's `if bx * block + i < N` is,
//   for i in [b, e): if (x + i < N and i - y >= 0) S
// runs S for the iterations of a shorter range:
//   for i in [min(max(b, y), e), max(min(e, N - x), b)): S
// (conjuncts that do not mention i stay as an `if` around the loop). The bounds are
// computed in int64 and clamped to [b, e], so they fit the loop variable's dtype.
// GCC masks every vector of a loop whose body is guarded (AVX-512's masked loads and
// stores, about 0.87x of memcpy for vector add at 16M floats); the C codegen prints
// the folded loop instead, which GCC vectorizes with plain loads and stores and a
// remainder. Nothing changes where the condition is anything else (an else branch,
// ==, !=, a non-unit coefficient, a loop variable under a division), nor for loops
// that are not vectorized or step by other than 1: then nullopt.
#pragma once

#include "tilec/ir/stmt.h"

#include <optional>

namespace tilec::cpu {

std::optional<ir::Stmt> fold_guard_into_loop_bounds(const ir::ForNode& loop);

}  // namespace tilec::cpu
