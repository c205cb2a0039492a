// Small affine facts about index expressions that the SIMT vectorizer relies on:
// the coefficient of one variable in an expression that is affine in it, and
// divisibility of an integer expression by a constant, proven from its structure
// (a sum of terms each with a factor that is a multiple of n). Both are conservative:
// nullopt / false means "not proven", never "proven false".
#pragma once

#include "tilec/ir/expr.h"

#include <optional>

namespace tilec::gpu {

// The coefficient of `v` in `e` when e is affine in v (sums, differences, products with
// a v-free factor, casts between integer types, v-free subexpressions), simplified;
// zero when e does not mention v; nullopt when e is not affine in v.
std::optional<ir::Expr> affine_coefficient(const ir::Expr& e, const ir::VarNode* v);

// True when e is proven to be a multiple of n for every value of its variables.
bool divisible_by(const ir::Expr& e, int64_t n);

}  // namespace tilec::gpu
