#include "tilec/ir/index_type.h"

#include <limits>

namespace tilec::ir {

namespace {

constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();

// Whether a narrow (<= 32-bit signed) type is too small for the loop. The variable
// takes values in [begin, end) and, in the compiled loop, one step past it: a bound
// within |step| of the int32 limit wraps the increment, so it needs int64 too.
bool needs_int64(const Expr& begin, const Expr& end, int64_t step, bool symbolic_steps) {
  // A symbolic bound of a wider type may take any of its values; a constant is
  // judged by its value (2**31 - 1 is an int64 expression that int32 holds).
  for (const Expr& x : {begin, end}) {
    DataType t = x.dtype();
    if (!as_const_int(x) && (t.bits > 32 || (t.is_uint() && t.bits >= 32))) return true;
  }
  const int64_t* b = as_const_int(begin);
  const int64_t* e = as_const_int(end);
  for (const int64_t* c : {b, e})
    if (c && (*c < kMin32 || *c > kMax32)) return true;
  // The variable's last value is the first one at or past the bound: up to
  // end - 1 + step going up, end + 1 + step going down.
  if (e && step > 0 && __int128(*e) - 1 + step > kMax32) return true;
  if (e && step < 0 && __int128(*e) + 1 + step < kMin32) return true;
  // A symbolic int32 bound: the variable stays below it with step 1 (the loop stops at
  // the bound); a larger step may jump past the int32 limit.
  if (symbolic_steps && !e && (step > 1 || step < -1)) return true;
  return false;
}

}  // namespace

DataType loop_var_dtype(const Expr& begin, const Expr& end, int64_t step) {
  return needs_int64(begin, end, step, true) ? DataType::Int64() : DataType::Int32();
}

bool loop_var_holds(DataType var, const Expr& begin, const Expr& end, int64_t step) {
  if (!var.is_integer()) return false;
  if (var.bits >= 64) return true;
  if (var.bits < 32 || var.is_uint()) {
    // Narrow or unsigned variables: only constant bounds can be checked.
    const int64_t *b = as_const_int(begin), *e = as_const_int(end);
    if (!b || !e) return begin.dtype().bits <= var.bits && end.dtype().bits <= var.bits;
    DataType t = var;
    auto fits = [&](int64_t v) {
      if (t.is_uint()) return v >= 0 && (t.bits >= 63 || v < (int64_t(1) << t.bits));
      return v >= -(int64_t(1) << (t.bits - 1)) && v < (int64_t(1) << (t.bits - 1));
    };
    return fits(*b) && fits(*e - (step > 0 ? 1 : -1));
  }
  // The check is the evident part of the rule: wide or out-of-range bounds.
  return !needs_int64(begin, end, step, false);
}

}  // namespace tilec::ir
