#include "interp_value.h"

#include "tilec/ir/const_fold.h"
#include "tilec/ir/float16.h"
#include "tilec/ir/float8.h"
#include "tilec/ir/tensor.h"

#include <cmath>
#include <cstring>

namespace tilec::interp {

double to_double(Slot value, DataType dtype) {
  if (dtype.is_float()) return value.f;
  if (dtype.is_uint() && dtype.bits == 64) return double(uint64_t(value.i));
  return double(value.i);
}

int64_t to_int(Slot value, DataType dtype) {
  return dtype.is_float() ? float_to_integer(value.f, DataType::Int64()) : value.i;
}

Slot convert(Slot value, DataType from, DataType to) {
  if (from == to) return value;
  if (to.is_float()) return float_slot(round_to_dtype_inline(to_double(value, from), to));
  if (from.is_float()) return int_slot(float_to_integer(value.f, to));
  return int_slot(wrap_to_dtype(value.i, to));
}

Slot arith(BinaryOp op, Slot a, Slot b, DataType operand) {
  if (operand.is_float()) {
    double r = float_binary(op, a.f, b.f, operand);
    return is_comparison(op) || is_logical(op) ? int_slot(r != 0) : float_slot(r);
  }
  // `/` is never built on integers; hand-built IR gets floor division, to stay total.
  if (op == BinaryOp::kDiv) op = BinaryOp::kFloorDiv;
  if (auto r = int_binary(op, a.i, b.i, operand)) return int_slot(r->value);
  throw IRError(op == BinaryOp::kFloorDiv ? "integer division by zero in '//'"
                                          : "integer modulo by zero in '%'");
}

Slot math(const std::string& name, const Slot* args, DataType t) {
  if (!t.is_float()) {  // only abs is typed on integers
    if (name == "abs") {
      uint64_t magnitude = args[0].i < 0 ? 0 - uint64_t(args[0].i) : uint64_t(args[0].i);
      return int_slot(wrap_to_dtype(int64_t(magnitude), t));
    }
    throw IRError("T." + name + " on " + t.str() + " operands: expected a float dtype");
  }
  double values[3] = {args[0].f, 0, 0};
  if (name == "pow" || name == "max" || name == "min" || name == "fma") values[1] = args[1].f;
  if (name == "fma") values[2] = args[2].f;
  if (std::optional<double> v = float_math(name, values, t)) return float_slot(*v);
  std::string known;
  for (const auto& n : math_intrinsic_names()) known += (known.empty() ? "" : ", ") + n;
  throw IRError("the interpreter does not know math function '" + name + "'; known: " + known);
}

namespace {

template <class T>
T load_raw(const char* base, int64_t flat) {
  T v;
  std::memcpy(&v, base + flat * int64_t(sizeof(T)), sizeof(T));
  return v;
}
template <class T>
void store_raw(char* base, int64_t flat, T v) {
  std::memcpy(base + flat * int64_t(sizeof(T)), &v, sizeof(T));
}

template <class T>
Slot read_int(const char* base, int64_t flat) {
  return int_slot(int64_t(load_raw<T>(base, flat)));
}
template <class T>
void write_int(char* base, int64_t flat, Slot v) {
  store_raw<T>(base, flat, T(v.i));
}
Slot read_bool(const char* base, int64_t flat) {
  return int_slot(load_raw<uint8_t>(base, flat) != 0);
}
void write_bool(char* base, int64_t flat, Slot v) {
  store_raw<uint8_t>(base, flat, v.i != 0);
}
Slot read_f16(const char* base, int64_t flat) {
  return float_slot(half_to_double_inline(load_raw<uint16_t>(base, flat)));
}
void write_f16(char* base, int64_t flat, Slot v) {
  store_raw(base, flat, double_to_half_inline(v.f));
}
Slot read_bf16(const char* base, int64_t flat) {
  return float_slot(bfloat16_to_double_inline(load_raw<uint16_t>(base, flat)));
}
void write_bf16(char* base, int64_t flat, Slot v) {
  store_raw(base, flat, double_to_bfloat16_inline(v.f));
}
Slot read_f8e4m3(const char* base, int64_t flat) {
  return float_slot(float8_to_double(load_raw<uint8_t>(base, flat), DataType::Float8E4M3()));
}
void write_f8e4m3(char* base, int64_t flat, Slot v) {
  store_raw(base, flat, double_to_float8(v.f, DataType::Float8E4M3()));
}
Slot read_f8e5m2(const char* base, int64_t flat) {
  return float_slot(float8_to_double(load_raw<uint8_t>(base, flat), DataType::Float8E5M2()));
}
void write_f8e5m2(char* base, int64_t flat, Slot v) {
  store_raw(base, flat, double_to_float8(v.f, DataType::Float8E5M2()));
}
Slot read_f32(const char* base, int64_t flat) {
  return float_slot(load_raw<float>(base, flat));
}
void write_f32(char* base, int64_t flat, Slot v) {
  store_raw(base, flat, float(v.f));
}
Slot read_f64(const char* base, int64_t flat) {
  return float_slot(load_raw<double>(base, flat));
}
void write_f64(char* base, int64_t flat, Slot v) {
  store_raw(base, flat, v.f);
}

[[noreturn]] void no_access(DataType t) {
  throw IRError("the interpreter cannot store elements of dtype " + t.str() +
                "; supported: " + std::string(supported_dtype_names()) + " without lanes");
}

}  // namespace

Reader reader_for(DataType t) {
  if (!t.is_scalar()) no_access(t);
  switch (t.code) {
    case TypeCode::kBool:
      return read_bool;
    case TypeCode::kBFloat:
      return read_bf16;
    case TypeCode::kFloat8E4M3:
      return read_f8e4m3;
    case TypeCode::kFloat8E5M2:
      return read_f8e5m2;
    case TypeCode::kFloat:
      if (t.bits == 16) return read_f16;
      if (t.bits == 32) return read_f32;
      if (t.bits == 64) return read_f64;
      break;
    case TypeCode::kInt:
      if (t.bits == 8) return read_int<int8_t>;
      if (t.bits == 16) return read_int<int16_t>;
      if (t.bits == 32) return read_int<int32_t>;
      if (t.bits == 64) return read_int<int64_t>;
      break;
    case TypeCode::kUInt:
      if (t.bits == 8) return read_int<uint8_t>;
      if (t.bits == 16) return read_int<uint16_t>;
      if (t.bits == 32) return read_int<uint32_t>;
      if (t.bits == 64) return read_int<uint64_t>;
      break;
  }
  no_access(t);
}

Writer writer_for(DataType t) {
  if (!t.is_scalar()) no_access(t);
  switch (t.code) {
    case TypeCode::kBool:
      return write_bool;
    case TypeCode::kBFloat:
      return write_bf16;
    case TypeCode::kFloat8E4M3:
      return write_f8e4m3;
    case TypeCode::kFloat8E5M2:
      return write_f8e5m2;
    case TypeCode::kFloat:
      if (t.bits == 16) return write_f16;
      if (t.bits == 32) return write_f32;
      if (t.bits == 64) return write_f64;
      break;
    case TypeCode::kInt:
    case TypeCode::kUInt:
      if (t.bits == 8) return write_int<uint8_t>;
      if (t.bits == 16) return write_int<uint16_t>;
      if (t.bits == 32) return write_int<uint32_t>;
      if (t.bits == 64) return write_int<uint64_t>;
      break;
  }
  no_access(t);
}

}  // namespace tilec::interp
