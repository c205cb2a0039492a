#include "tilec/codegen/c_preamble.h"

#include "tilec/codegen/bounds_record.h"
#include "tilec/codegen/narrow_float.h"
#include "tilec/codegen/text_sections.h"
#include "tilec/ir/expr.h"

#include <fmt/format.h>

#include <set>

namespace tilec::codegen {

// src/codegen/text/c_helpers.h, embedded at build time (CMakeLists.txt).
std::string_view c_helpers_text();

namespace {
// The C dialect's helper text (src/codegen/text/c_helpers.h), split into its sections
// with the status codes of runtime/abi.h.
const TextSections& c_sections() {
  static const TextSections sections("src/codegen/text/c_helpers.h", c_helpers_text(),
                                     {{"TILEC_STATUS_DIVISION_BY_ZERO", kStatusDivisionByZero},
                                      {"TILEC_STATUS_OUT_OF_BOUNDS", kStatusOutOfBounds},
                                      {"TILEC_STATUS_OUT_OF_MEMORY", kStatusOutOfMemory}});
  return sections;
}
}  // namespace

const std::string& c_helper_section(const std::string& name) {
  return c_sections().get(name);
}

const std::string& c_preamble_includes() {
  return c_sections().get("includes");
}

namespace {

// The add/max/min helpers of one 16-bit float dtype: suffix "f16" or "bf16", whose
// conversions are tilec_<suffix>_to_f32 / tilec_f32_to_<suffix>; the section "atomic16"
// defines the compare-and-swap loop they instantiate.
std::string atomic16_section(const std::string& suffix) {
  std::string out = c_helper_section("atomic16") + "#ifndef TILEC_HELPER_ATOMIC_" + suffix +
                    "\n#define TILEC_HELPER_ATOMIC_" + suffix + "\n";
  for (const auto& [op, next] : {std::pair<const char*, const char*>{"add", "cur + v"},
                                 {"max", "cur < v ? v : cur"},
                                 {"min", "v < cur ? v : cur"}})
    out += fmt::format("TILEC_ATOMIC16(tilec_atomic_{}_{}, tilec_{}_to_f32, tilec_f32_to_{}, {})\n",
                       op, suffix, suffix, suffix, next);
  return out + "#endif\n";
}

// float8: the shared software conversion (narrow_float.h, per dtype), with the memcpy bit
// casts of the section "f8_bits".
std::string float8_section(ir::DataType t, const char* guard) {
  Float8Dialect c{"static inline __attribute__((unused))", "tilec_f8_f32_bits({})",
                  "tilec_f8_bits_f32({})", "rintf"};
  return c_helper_section("f8_bits") +
         fmt::format("#ifndef {0}\n#define {0}{1}#endif\n", guard, float8_helper_source(t, c));
}

}  // namespace

std::string c_preamble_helper(const std::string& name) {
  if (name == "f8e4m3") return float8_section(ir::DataType::Float8E4M3(), "TILEC_HELPER_F8E4M3");
  if (name == "f8e5m2") return float8_section(ir::DataType::Float8E5M2(), "TILEC_HELPER_F8E5M2");
  static const std::string f16_atomic = atomic16_section("f16");
  static const std::string bf16_atomic = atomic16_section("bf16");
  if (name == "f16_atomic") return f16_atomic;
  if (name == "bf16_atomic") return bf16_atomic;
  static const std::set<std::string> fixed = {"alloc", "atomic",   "bf16", "bounds",
                                              "f16",   "floordiv", "ivdep"};
  if (!fixed.count(name)) {
    throw ir::IRError("codegen: unknown C helper section '" + name +
                      "'; known: alloc, atomic, bf16, bf16_atomic, bounds, f16, f16_atomic, "
                      "f8e4m3, f8e5m2, floordiv, ivdep");
  }
  return c_helper_section(name);
}

}  // namespace tilec::codegen
