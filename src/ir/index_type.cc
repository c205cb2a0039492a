#include "tilec/ir/index_type.h"

#include <limits>

namespace tilec::ir {

namespace {

constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();

// Whether a narrow (<= 32-bit signed) type is too small for the loop. The variable
// takes values in [begin, end) and, in the compiled loop, one step past: a bound
// within |step| of the int32 limit wraps the increment, so it needs int64 too.
bool needs_int64(const Expr& begin, const Expr& end, int64_t step, bool symbolic_steps) {
  for (const Expr& b : {begin, end}) {
    DataType t = b.dtype();
    if (t.bits > 32 || (t.is_uint() && t.bits >= 32)) return true;
  }
  const int64_t* b = as_const_int(begin);
  const int64_t* e = as_const_int(end);
  __int128 reach = __int128(step > 0 ? step : -__int128(step));
  for (const int64_t* c : {b, e}) {
    if (!c) continue;
    if (*c < kMin32 || *c > kMax32) return true;
    if (__int128(*c) + reach > kMax32 || __int128(*c) - reach < kMin32) return true;
  }
  // A symbolic int32 bound: the variable stays below it with step 1 (the loop stops at
  // the bound); a larger step may jump past the int32 limit.
  if (symbolic_steps && (!b || !e) && (step > 1 || step < -1)) return true;
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
