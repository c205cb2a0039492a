#include "tilec/ir/const_fold.h"

#include "tilec/ir/float16.h"
#include "tilec/ir/tensor.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <unordered_map>

namespace tilec::ir {
namespace {

using Wide = __int128;

// The mathematical value of `v`, a value of integer/bool dtype t.
Wide exact(int64_t v, DataType t) {
  return t.is_uint() && t.bits == 64 ? Wide(uint64_t(v)) : Wide(v);
}

bool in_range(Wide v, DataType t) {
  if (t.is_bool()) return v == 0 || v == 1;
  if (t.is_uint()) return v >= 0 && v <= (Wide(1) << t.bits) - 1;
  return v >= -(Wide(1) << (t.bits - 1)) && v <= (Wide(1) << (t.bits - 1)) - 1;
}

// Floor division and modulo of exact values (b != 0); no overflow is possible in 128 bits.
Wide floor_div(Wide a, Wide b) {
  Wide q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
Wide floor_mod(Wide a, Wide b) {
  Wide r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

IntFold wrapped(Wide v, bool overflowed, DataType t) {
  // The low 64 bits, then the dtype's width: what two's-complement hardware keeps.
  int64_t low = int64_t(uint64_t(static_cast<unsigned __int128>(v)));
  return {wrap_to_dtype(low, t), overflowed || !in_range(v, t)};
}

}  // namespace

std::optional<IntFold> int_binary(BinaryOp op, int64_t a_bits, int64_t b_bits, DataType t) {
  Wide a = exact(a_bits, t), b = exact(b_bits, t), r = 0;
  switch (op) {
    case BinaryOp::kAdd:
      return wrapped(a + b, false, t);
    case BinaryOp::kSub:
      return wrapped(a - b, false, t);
    case BinaryOp::kMul: {
      // uint64 * uint64 can exceed 128 signed bits; the wrapped value is still the low bits.
      bool overflow = __builtin_mul_overflow(a, b, &r);
      if (overflow) r = Wide(uint64_t(a_bits) * uint64_t(b_bits));
      return wrapped(r, overflow, t);
    }
    case BinaryOp::kDiv:
      return std::nullopt;
    case BinaryOp::kFloorDiv:
      if (b == 0) return std::nullopt;
      return wrapped(floor_div(a, b), false, t);
    case BinaryOp::kFloorMod:
      if (b == 0) return std::nullopt;
      return wrapped(floor_mod(a, b), false, t);
    case BinaryOp::kMin:
      return wrapped(std::min(a, b), false, t);
    case BinaryOp::kMax:
      return wrapped(std::max(a, b), false, t);
    case BinaryOp::kEQ:
      return IntFold{a == b, false};
    case BinaryOp::kNE:
      return IntFold{a != b, false};
    case BinaryOp::kLT:
      return IntFold{a < b, false};
    case BinaryOp::kLE:
      return IntFold{a <= b, false};
    case BinaryOp::kGT:
      return IntFold{a > b, false};
    case BinaryOp::kGE:
      return IntFold{a >= b, false};
    case BinaryOp::kAnd:
      return IntFold{a != 0 && b != 0, false};
    case BinaryOp::kOr:
      return IntFold{a != 0 || b != 0, false};
    case BinaryOp::kBitAnd:
      return wrapped(a & b, false, t);
    case BinaryOp::kBitOr:
      return wrapped(a | b, false, t);
    case BinaryOp::kBitXor:
      return wrapped(a ^ b, false, t);
    case BinaryOp::kShl:
    case BinaryOp::kShr: {
      int count = int(uint64_t(b_bits) & uint64_t(t.bits - 1));
      if (op == BinaryOp::kShr)
        return wrapped(a >> count, false, t);  // exact: arithmetic or logical
      return wrapped(a * (Wide(1) << count), false, t);
    }
  }
  return std::nullopt;
}

double round_float(double value, DataType t) {
  // float64 and in-range float32 need no bit fiddling; the rest go through float16.h.
  if (t.code == TypeCode::kFloat && t.bits == 64) return value;
  if (t.code == TypeCode::kFloat && t.bits == 32 && std::fabs(value) <= FLT_MAX)
    return double(float(value));
  return round_to_dtype(value, t);
}

double float_binary(BinaryOp op, double a, double b, DataType t) {
  switch (op) {
    case BinaryOp::kAdd:
      return round_float(a + b, t);
    case BinaryOp::kSub:
      return round_float(a - b, t);
    case BinaryOp::kMul:
      return round_float(a * b, t);
    case BinaryOp::kDiv:
      return round_float(a / b, t);
    case BinaryOp::kFloorDiv:
      return round_float(std::floor(a / b), t);
    case BinaryOp::kFloorMod: {
      double m = std::fmod(a, b);
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return round_float(m, t);
    }
    case BinaryOp::kMin:
      return std::fmin(a, b);
    case BinaryOp::kMax:
      return std::fmax(a, b);
    case BinaryOp::kEQ:
      return a == b;
    case BinaryOp::kNE:
      return a != b;
    case BinaryOp::kLT:
      return a < b;
    case BinaryOp::kLE:
      return a <= b;
    case BinaryOp::kGT:
      return a > b;
    case BinaryOp::kGE:
      return a >= b;
    case BinaryOp::kAnd:
      return a != 0 && b != 0;
    case BinaryOp::kOr:
      return a != 0 || b != 0;
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
    case BinaryOp::kShl:
    case BinaryOp::kShr:
      return std::nan("");  // never built on floats (binary() rejects them)
  }
  return 0;
}

std::optional<Expr> fold_binary(BinaryOp op, const Expr& a, const Expr& b) {
  if (!a || !b || a.dtype() != b.dtype() || !a.dtype().is_scalar()) return std::nullopt;
  DataType t = a.dtype();
  bool to_bool = is_comparison(op) || is_logical(op);
  auto* ia = a.as<IntImmNode>();
  auto* ib = b.as<IntImmNode>();
  if (ia && ib && !t.is_float()) {
    auto r = int_binary(op, ia->value, ib->value, t);
    if (!r) return std::nullopt;
    return to_bool ? make_bool(r->value != 0) : make_int(r->value, t);
  }
  auto* fa = a.as<FloatImmNode>();
  auto* fb = b.as<FloatImmNode>();
  if (fa && fb && t.is_float()) {
    double r = float_binary(op, fa->value, fb->value, t);
    return to_bool ? make_bool(r != 0) : make_float(r, t);
  }
  return std::nullopt;
}

FloatMathFn float_math_function(const std::string& name) {
  static const std::unordered_map<std::string, FloatMathFn> functions = {
      {"exp", [](const double* a) { return std::exp(a[0]); }},
      {"exp2", [](const double* a) { return std::exp2(a[0]); }},
      {"exp10", [](const double* a) { return std::pow(10.0, a[0]); }},
      {"expm1", [](const double* a) { return std::expm1(a[0]); }},
      {"log", [](const double* a) { return std::log(a[0]); }},
      {"log2", [](const double* a) { return std::log2(a[0]); }},
      {"log10", [](const double* a) { return std::log10(a[0]); }},
      {"log1p", [](const double* a) { return std::log1p(a[0]); }},
      {"sqrt", [](const double* a) { return std::sqrt(a[0]); }},
      {"rsqrt", [](const double* a) { return 1.0 / std::sqrt(a[0]); }},
      {"tanh", [](const double* a) { return std::tanh(a[0]); }},
      {"sigmoid", [](const double* a) { return 1.0 / (1.0 + std::exp(-a[0])); }},
      {"erf", [](const double* a) { return std::erf(a[0]); }},
      {"sin", [](const double* a) { return std::sin(a[0]); }},
      {"cos", [](const double* a) { return std::cos(a[0]); }},
      {"tan", [](const double* a) { return std::tan(a[0]); }},
      {"asin", [](const double* a) { return std::asin(a[0]); }},
      {"acos", [](const double* a) { return std::acos(a[0]); }},
      {"atan", [](const double* a) { return std::atan(a[0]); }},
      {"sinh", [](const double* a) { return std::sinh(a[0]); }},
      {"cosh", [](const double* a) { return std::cosh(a[0]); }},
      {"asinh", [](const double* a) { return std::asinh(a[0]); }},
      {"acosh", [](const double* a) { return std::acosh(a[0]); }},
      {"atanh", [](const double* a) { return std::atanh(a[0]); }},
      {"abs", [](const double* a) { return std::fabs(a[0]); }},
      {"floor", [](const double* a) { return std::floor(a[0]); }},
      {"ceil", [](const double* a) { return std::ceil(a[0]); }},
      {"trunc", [](const double* a) { return std::trunc(a[0]); }},
      // Halves away from zero, as C's round; nearbyint rounds them to even.
      {"round", [](const double* a) { return std::round(a[0]); }},
      {"nearbyint", [](const double* a) { return std::nearbyint(a[0]); }},
      {"pow", [](const double* a) { return std::pow(a[0], a[1]); }},
      {"atan2", [](const double* a) { return std::atan2(a[0], a[1]); }},
      {"fmod", [](const double* a) { return std::fmod(a[0], a[1]); }},
      {"hypot", [](const double* a) { return std::hypot(a[0], a[1]); }},
      {"copysign", [](const double* a) { return std::copysign(a[0], a[1]); }},
      {"fma", [](const double* a) { return std::fma(a[0], a[1], a[2]); }},
      {"max", [](const double* a) { return std::fmax(a[0], a[1]); }},
      {"min", [](const double* a) { return std::fmin(a[0], a[1]); }},
  };
  auto it = functions.find(name);
  return it == functions.end() ? nullptr : it->second;
}

std::optional<double> float_math(const std::string& name, const double* args, DataType t) {
  FloatMathFn fn = float_math_function(name);
  if (!fn) return std::nullopt;
  return round_float(fn(args), t);
}

}  // namespace tilec::ir
