// Structural equality and hashing of tile IR. Variables and buffers compare by
// binding position (alpha-equivalence): names and spans are ignored, buffers compare
// by dtype, shape, strides, scope and read_only. Both functions read one canonical
// token stream, so structural_equal(a, b) implies structural_hash(a) ==
// structural_hash(b); the hash (FNV-1a, 64-bit) uses no pointers or std::hash and is
// stable across processes, runs and platforms: it keys the on-disk kernel cache.
#pragma once

#include "tilec/ir/function.h"

#include <cstdint>

namespace tilec::ir {

bool structural_equal(const Expr& a, const Expr& b);
bool structural_equal(const Stmt& a, const Stmt& b);
bool structural_equal(const PrimFunc& a, const PrimFunc& b);
bool structural_equal(const IRModule& a, const IRModule& b);

uint64_t structural_hash(const Expr& x);
uint64_t structural_hash(const Stmt& x);
uint64_t structural_hash(const PrimFunc& x);
uint64_t structural_hash(const IRModule& x);

// Equality of pure expressions with variables and buffers compared by identity, where
// structural_equal would equate two different free variables: "is this the same value
// at this point of the program" (the printer's `+=`, the check's dependence test).
// Calls compare by name and arguments, so they are taken to be pure; NaN constants
// equal each other.
bool same_expr(const Expr& a, const Expr& b);

}  // namespace tilec::ir
