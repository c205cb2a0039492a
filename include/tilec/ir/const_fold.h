// The one definition of scalar arithmetic on constants (docs/semantics.md): integer
// results wrap to their dtype, `//` and `%` are floor division and floor modulo, float
// results round to their dtype (float16/bfloat16 to nearest even). The reference
// interpreter computes every scalar operation with these functions; the parser's
// constant folding and transform::simplify fold with them too, each deciding only
// *whether* to fold (the parser rejects overflow, simplify leaves to run time what the
// generated code could compute differently), never *what* the value is.
#pragma once

#include "tilec/ir/expr.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tilec::ir {

struct IntFold {
  int64_t value = 0;        // the result wrapped to the dtype (uint64 as its bit pattern)
  bool overflowed = false;  // the exact result lies outside the dtype's range
};

// `a op b` on integer or bool operands that are values of dtype `t` (uint64 as its bit
// pattern). Comparisons and and/or give 0 or 1. nullopt where the result is undefined:
// division or modulo by zero, and `/` (kDiv), which is never built on integers.
std::optional<IntFold> int_binary(BinaryOp op, int64_t a, int64_t b, DataType t);

// `value` rounded to float dtype `t`: float64 unchanged, float32/float16/bfloat16 to
// nearest even (overflow to infinity).
double round_float(double value, DataType t);

// `a op b` on operands that are values of float dtype `t`, the result rounded to t.
// Comparisons and and/or give 0 or 1; division by zero follows IEEE (inf or NaN); min
// and max are fmin/fmax (a NaN operand loses); `%` takes the divisor's sign (Python).
double float_binary(BinaryOp op, double a, double b, DataType t);

// Math function `name` (T.exp, T.log2, T.ceil, ... of expr.h's math_intrinsic_names) on
// float operands of dtype `t`, computed in double and rounded to t; nullopt for a name
// that is not a float math function. Arity is the caller's: pow/max/min read args[1],
// fma args[1] and args[2].
std::optional<double> float_math(const std::string& name, const double* args, DataType t);

// The double function behind float math function `name` (unrounded), or nullptr: what
// float_math looks up, for callers that resolve the name once and call it per element.
using FloatMathFn = double (*)(const double*);
FloatMathFn float_math_function(const std::string& name);

// `a op b` for two constants (IntImm/FloatImm) of one dtype, as a constant of the
// operation's result dtype (bool for comparisons and logic). nullopt when an operand is
// not a constant, the dtypes differ, the dtype has lanes, or int_binary() leaves the
// result undefined.
std::optional<Expr> fold_binary(BinaryOp op, const Expr& a, const Expr& b);

}  // namespace tilec::ir
