#include "interp_value.h"

#include "tilec/ir/float16.h"
#include "tilec/ir/tensor.h"

#include <cfloat>
#include <cmath>
#include <cstring>

namespace tilec::ir::interp {

double round_float(double value, DataType dtype) {
  if (dtype.code == TypeCode::kFloat && dtype.bits == 64) return value;
  if (dtype.code == TypeCode::kFloat && dtype.bits == 32 && std::fabs(value) <= FLT_MAX)
    return double(float(value));
  return round_to_dtype(value, dtype);
}

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
  if (to.is_float()) return float_slot(round_float(to_double(value, from), to));
  if (from.is_float()) return int_slot(float_to_integer(value.f, to));
  return int_slot(wrap_to_dtype(value.i, to));
}

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  if (b == 0) throw IRError("integer division by zero in '//'");
  if (b == -1) return int64_t(0 - uint64_t(a));  // INT64_MIN // -1 wraps instead of trapping
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floor_mod(int64_t a, int64_t b) {
  if (b == 0) throw IRError("integer modulo by zero in '%'");
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

Slot int_arith(BinaryOp op, int64_t a, int64_t b, DataType t) {
  bool u64 = t.is_uint() && t.bits == 64;
  uint64_t ua = uint64_t(a), ub = uint64_t(b);
  auto wrap = [&](uint64_t v) { return int_slot(wrap_to_dtype(int64_t(v), t)); };
  switch (op) {
    case BinaryOp::kAdd:
      return wrap(ua + ub);
    case BinaryOp::kSub:
      return wrap(ua - ub);
    case BinaryOp::kMul:
      return wrap(ua * ub);
    case BinaryOp::kDiv:  // never built on integers; kept total for hand-built IR
    case BinaryOp::kFloorDiv:
      if (u64) {
        if (ub == 0) throw IRError("integer division by zero in '//'");
        return int_slot(int64_t(ua / ub));
      }
      return wrap(uint64_t(floor_div(a, b)));
    case BinaryOp::kFloorMod:
      if (u64) {
        if (ub == 0) throw IRError("integer modulo by zero in '%'");
        return int_slot(int64_t(ua % ub));
      }
      return wrap(uint64_t(floor_mod(a, b)));
    case BinaryOp::kMin:
      return int_slot(u64 ? int64_t(std::min(ua, ub)) : std::min(a, b));
    case BinaryOp::kMax:
      return int_slot(u64 ? int64_t(std::max(ua, ub)) : std::max(a, b));
    case BinaryOp::kEQ:
      return int_slot(a == b);
    case BinaryOp::kNE:
      return int_slot(a != b);
    case BinaryOp::kLT:
      return int_slot(u64 ? ua < ub : a < b);
    case BinaryOp::kLE:
      return int_slot(u64 ? ua <= ub : a <= b);
    case BinaryOp::kGT:
      return int_slot(u64 ? ua > ub : a > b);
    case BinaryOp::kGE:
      return int_slot(u64 ? ua >= ub : a >= b);
    case BinaryOp::kAnd:
      return int_slot(a != 0 && b != 0);
    case BinaryOp::kOr:
      return int_slot(a != 0 || b != 0);
  }
  return int_slot(0);
}

Slot float_arith(BinaryOp op, double a, double b, DataType t) {
  auto r = [&](double v) { return float_slot(round_float(v, t)); };
  switch (op) {
    case BinaryOp::kAdd:
      return r(a + b);
    case BinaryOp::kSub:
      return r(a - b);
    case BinaryOp::kMul:
      return r(a * b);
    case BinaryOp::kDiv:
      return r(a / b);
    case BinaryOp::kFloorDiv:
      return r(std::floor(a / b));
    case BinaryOp::kFloorMod: {  // Python's float %: the sign of the divisor
      double m = std::fmod(a, b);
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return r(m);
    }
    case BinaryOp::kMin:
      return float_slot(std::fmin(a, b));
    case BinaryOp::kMax:
      return float_slot(std::fmax(a, b));
    case BinaryOp::kEQ:
      return int_slot(a == b);
    case BinaryOp::kNE:
      return int_slot(a != b);
    case BinaryOp::kLT:
      return int_slot(a < b);
    case BinaryOp::kLE:
      return int_slot(a <= b);
    case BinaryOp::kGT:
      return int_slot(a > b);
    case BinaryOp::kGE:
      return int_slot(a >= b);
    case BinaryOp::kAnd:
      return int_slot(a != 0 && b != 0);
    case BinaryOp::kOr:
      return int_slot(a != 0 || b != 0);
  }
  return int_slot(0);
}

}  // namespace

Slot arith(BinaryOp op, Slot a, Slot b, DataType operand) {
  return operand.is_float() ? float_arith(op, a.f, b.f, operand) : int_arith(op, a.i, b.i, operand);
}

Slot math(const std::string& name, const Slot* args, DataType t) {
  if (!t.is_float()) {  // only abs is typed on integers
    if (name == "abs") {
      uint64_t magnitude = args[0].i < 0 ? 0 - uint64_t(args[0].i) : uint64_t(args[0].i);
      return int_slot(wrap_to_dtype(int64_t(magnitude), t));
    }
    throw IRError("T." + name + " on " + t.str() + " operands: expected a float dtype");
  }
  double x = args[0].f, v;
  if (name == "exp")
    v = std::exp(x);
  else if (name == "exp2")
    v = std::exp2(x);
  else if (name == "log")
    v = std::log(x);
  else if (name == "log2")
    v = std::log2(x);
  else if (name == "sqrt")
    v = std::sqrt(x);
  else if (name == "rsqrt")
    v = 1.0 / std::sqrt(x);
  else if (name == "tanh")
    v = std::tanh(x);
  else if (name == "sigmoid")
    v = 1.0 / (1.0 + std::exp(-x));
  else if (name == "abs")
    v = std::fabs(x);
  else if (name == "floor")
    v = std::floor(x);
  else if (name == "ceil")
    v = std::ceil(x);
  else if (name == "pow")
    v = std::pow(x, args[1].f);
  else if (name == "fma")
    v = std::fma(x, args[1].f, args[2].f);
  else if (name == "max")
    v = std::fmax(x, args[1].f);
  else if (name == "min")
    v = std::fmin(x, args[1].f);
  else {
    std::string known;
    for (const auto& n : math_intrinsic_names()) known += (known.empty() ? "" : ", ") + n;
    throw IRError("the interpreter does not know math function '" + name + "'; known: " + known);
  }
  return float_slot(round_float(v, t));
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
  return float_slot(half_to_float(load_raw<uint16_t>(base, flat)));
}
void write_f16(char* base, int64_t flat, Slot v) {
  store_raw(base, flat, double_to_half(v.f));
}
Slot read_bf16(const char* base, int64_t flat) {
  return float_slot(bfloat16_to_float(load_raw<uint16_t>(base, flat)));
}
void write_bf16(char* base, int64_t flat, Slot v) {
  store_raw(base, flat, double_to_bfloat16(v.f));
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

}  // namespace tilec::ir::interp
