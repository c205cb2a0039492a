#include "tilec/codegen/narrow_float.h"

#include "tilec/ir/expr.h"

#include <fmt/format.h>

#include <cmath>

namespace tilec::codegen {

using ir::DataType;
using ir::TypeCode;

namespace {

int mantissa_bits(DataType t) {
  switch (t.code) {
    case TypeCode::kBFloat:
      return 7;
    case TypeCode::kFloat8E4M3:
      return 3;
    case TypeCode::kFloat8E5M2:
      return 2;
    default:
      return 10;
  }
}

}  // namespace

std::string narrow_float_suffix(DataType t) {
  if (t.code == TypeCode::kBFloat) return "bf16";
  if (t.code == TypeCode::kFloat8E4M3) return "f8e4m3";
  if (t.code == TypeCode::kFloat8E5M2) return "f8e5m2";
  if (t.code == TypeCode::kFloat && t.bits == 16) return "f16";
  throw ir::IRError("codegen: " + t.str() + " is not a narrow float (float16, bfloat16, float8)");
}

double narrow_float_exact_integer_limit(DataType t) {
  return std::ldexp(1.0, mantissa_bits(t) + 1);
}

std::string float8_helper_source(DataType t, const Float8Dialect& d) {
  bool e4m3 = t.code == TypeCode::kFloat8E4M3;
  if (!e4m3 && t.code != TypeCode::kFloat8E5M2) {
    throw ir::IRError("codegen: float8 helpers asked for " + t.str());
  }
  const int m = e4m3 ? 3 : 2;
  const int bias = e4m3 ? 7 : 15;
  const unsigned max_code = e4m3 ? 0x7E : 0x7B;
  const uint32_t max_bits = e4m3 ? 0x43E00000u : 0x47600000u;       // 448.0f, 57344.0f
  const uint32_t min_normal_bits = uint32_t(127 + 1 - bias) << 23;  // 2^(1-bias)
  const std::string s = narrow_float_suffix(t);
  auto bits = [&](const std::string& x) { return fmt::format(fmt::runtime(d.to_bits), x); };
  auto from = [&](const std::string& x) { return fmt::format(fmt::runtime(d.from_bits), x); };
  std::string special =
      e4m3 ? fmt::format("  if (m == 0x7Fu) return {};\n", from("0x7FC00000u"))
           : fmt::format("  if (m > 0x7Cu) return {};\n  if (m == 0x7Cu) return {};\n",
                         from("0x7FC00000u"), from("sign | 0x7F800000u"));
  // Decoding: subnormals m * 2^(1-bias-M) are exact floats; normals move the exponent.
  // Encoding: NaN -> 0x7F; |x| >= max finite (infinities too) saturates; below the
  // smallest normal the value is a multiple of 2^(1-bias-M), found by an exact scaling and
  // rint (ties to even); otherwise the float's bits are rounded to M mantissa bits, ties to
  // even, a carry moving into the exponent, and rebased.
  return fmt::format(
      R"(
{q} float tilec_{s}_to_f32(uint8_t c) {{
  uint32_t sign = (uint32_t)(c & 0x80u) << 24;
  uint32_t m = (uint32_t)(c & 0x7Fu);
{special}  if (m < {one}u) return {sub};
  return {normal};
}}
{q} uint8_t tilec_f32_to_{s}(float f) {{
  uint32_t u = {fbits};
  uint32_t a = u & 0x7FFFFFFFu;
  uint32_t sign = (u >> 24) & 0x80u;
  if (a > 0x7F800000u) return (uint8_t)0x7Fu;
  if (a >= 0x{max_bits:X}u) return (uint8_t)(sign | 0x{max_code:X}u);
  if (a < 0x{min_normal:X}u) return (uint8_t)(sign | (uint32_t){rint}({abs_f} * {up_scale}f));
  uint32_t r = (a + 0x{half:X}u + ((a >> {shift}) & 1u)) >> {shift};
  return (uint8_t)(sign | (r - 0x{rebase:X}u));
}}
{q} float tilec_round_{s}(float f) {{ return tilec_{s}_to_f32(tilec_f32_to_{s}(f)); }}
)",
      fmt::arg("q", d.qualifiers), fmt::arg("s", s), fmt::arg("special", special),
      fmt::arg("one", 1u << m),
      fmt::arg("sub", from("sign | " + bits(fmt::format("(float)m * 0x1p-{}f", bias + m - 1)))),
      fmt::arg("normal", from(fmt::format("sign | ((m << {}) + 0x{:X}u)", 23 - m,
                                          uint32_t(127 - bias) << 23))),
      fmt::arg("fbits", bits("f")), fmt::arg("max_bits", max_bits), fmt::arg("max_code", max_code),
      fmt::arg("min_normal", min_normal_bits), fmt::arg("rint", d.rint),
      fmt::arg("abs_f", from("a")), fmt::arg("up_scale", fmt::format("0x1p{}", bias + m - 1)),
      fmt::arg("half", (1u << (22 - m)) - 1), fmt::arg("shift", 23 - m),
      fmt::arg("rebase", uint32_t(127 - bias) << m));
}

}  // namespace tilec::codegen
