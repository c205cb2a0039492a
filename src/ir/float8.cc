#include "tilec/ir/float8.h"

#include "tilec/ir/expr.h"
#include "tilec/ir/float16.h"

#include <cmath>

namespace tilec::ir {
namespace {

// A float8 format: `mantissa_bits` stored fraction bits, exponent bias, the code of the
// largest finite value and whether the all-ones exponent holds infinities/NaNs (e5m2) or
// ordinary numbers (e4m3, where only mantissa all-ones is NaN).
struct Format {
  int mantissa_bits;
  int bias;
  uint8_t max_code;
};
constexpr Format kE4M3{3, 7, 0x7E};
constexpr Format kE5M2{2, 15, 0x7B};
constexpr uint8_t kNaN = 0x7F;

[[noreturn, gnu::cold, gnu::noinline]] void not_float8(DataType dtype) {
  throw IRError("float8 conversion asked for dtype " + dtype.str() +
                "; expected float8_e4m3 or float8_e5m2");
}

// Inlined into the per-element conversions: the error is out of line.
inline const Format& format_of(DataType dtype) {
  if (dtype.code == TypeCode::kFloat8E4M3) return kE4M3;
  if (dtype.code == TypeCode::kFloat8E5M2) return kE5M2;
  not_float8(dtype);
}

double decode(uint8_t bits, const Format& f) {
  double sign = bits & 0x80 ? -1.0 : 1.0;
  int exp_field = (bits & 0x7F) >> f.mantissa_bits;
  int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  if (f.bias == 15 && exp_field == 31) return mantissa ? std::nan("") : sign * INFINITY;
  if (f.bias == 7 && (bits & 0x7F) == kNaN) return std::nan("");
  int min_exp = 1 - f.bias;
  if (exp_field == 0) return sign * std::ldexp(double(mantissa), min_exp - f.mantissa_bits);
  return sign * std::ldexp(double(mantissa + (1 << f.mantissa_bits)),
                           exp_field - f.bias - f.mantissa_bits);
}

// Every code's value, decoded once: the interpreter decodes per element.
struct DecodeTable {
  double value[256];
  explicit DecodeTable(const Format& f) {
    for (int bits = 0; bits < 256; ++bits) value[bits] = decode(uint8_t(bits), f);
  }
};
const DecodeTable kE4M3Values(kE4M3), kE5M2Values(kE5M2);
const DecodeTable& table_of(const Format& f) {
  return &f == &kE4M3 ? kE4M3Values : kE5M2Values;
}

uint8_t encode(double value, const Format& f) {
  if (std::isnan(value)) return kNaN;
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  double a = std::fabs(value);
  if (a >= table_of(f).value[f.max_code]) return sign | f.max_code;  // saturate, infinities too
  if (a == 0) return sign;
  uint64_t code = round_to_narrow_code(a, f.mantissa_bits, 1 - f.bias);
  return sign | uint8_t(code > f.max_code ? f.max_code : code);
}

}  // namespace

uint8_t double_to_float8(double value, DataType dtype) {
  return encode(value, format_of(dtype));
}

double float8_to_double(uint8_t bits, DataType dtype) {
  return table_of(format_of(dtype)).value[bits];
}

double float8_max(DataType dtype) {
  const Format& f = format_of(dtype);
  return decode(f.max_code, f);
}

}  // namespace tilec::ir
