// Scalar values of the reference interpreter, their arithmetic and conversions, shared
// by expressions and tile operations so both follow docs/semantics.md identically; the
// arithmetic itself is the IR core's constant folder (tilec/ir/const_fold.h). A Slot holds an int64
// for bool/integer dtypes (uint64 as its bit pattern) and a double, already rounded to the dtype,
// for floats.
#pragma once

#include "tilec/ir/const_fold.h"
#include "tilec/ir/expr.h"
#include "tilec/ir/float16.h"  // round_to_dtype_inline: round_float on the per-element paths

#include <cstdint>

namespace tilec::interp {

// The interpreter runs tile IR: its code names the IR's types unqualified.
using namespace ::tilec::ir;

union Slot {
  int64_t i;
  double f;
};
inline Slot int_slot(int64_t v) {
  Slot s;
  s.i = v;
  return s;
}
inline Slot float_slot(double v) {
  Slot s;
  s.f = v;
  return s;
}
inline Slot zero_slot(DataType t) {
  return t.is_float() ? float_slot(0.0) : int_slot(0);
}

using ir::round_float;  // tilec/ir/const_fold.h: to a float dtype, nearest even

Slot convert(Slot value, DataType from, DataType to);
// convert() with float-to-float inline (a double already rounded to `from`, rounded
// once to `to`): the per-element paths use it.
inline Slot convert_inline(Slot value, DataType from, DataType to) {
  if (from == to) return value;
  if (from.is_float() && to.is_float()) return float_slot(round_to_dtype_inline(value.f, to));
  return convert(value, from, to);
}
double to_double(Slot value, DataType dtype);
int64_t to_int(Slot value, DataType dtype);  // floats truncate toward zero
// `op` on operands of dtype `operand`; comparisons and logic give bool (0/1).
// Integer division or modulo by zero throws IRError.
Slot arith(BinaryOp op, Slot a, Slot b, DataType operand);
// A math intrinsic (exp, sqrt, fma, ...) with arguments and result of dtype `dtype`.
Slot math(const std::string& name, const Slot* args, DataType dtype);

// Element access for one scalar dtype, chosen once per buffer.
using Reader = Slot (*)(const char* base, int64_t flat);
using Writer = void (*)(char* base, int64_t flat, Slot value);  // value already in dtype
Reader reader_for(DataType dtype);
Writer writer_for(DataType dtype);

}  // namespace tilec::interp
