#include "tilec/metal/emulator_dialect.h"

#include "tilec/codegen/c_preamble.h"

#include <fmt/format.h>

#include <regex>

namespace tilec::metal {

// Embedded from include/tilec/emu/metal.h at build time (src/metal/CMakeLists.txt).
std::string_view emulator_metal_header_text();

namespace {

// The shim headers' directory inside the build's include directory (emulator.h).
constexpr const char* kShimDir = "metal_shim";

// A C preamble section with its functions renamed (tilec_X -> tilec_emu_X), so it defines
// the shim's conversions without taking the names the MSL preamble defines on top of half.
std::string renamed_section(const std::string& section, const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += fmt::format("#define tilec_{0} tilec_emu_{0}\n", n);
  out += codegen::c_preamble_helper(section);
  for (const auto& n : names) out += fmt::format("#undef tilec_{}\n", n);
  return out;
}

// <metal_stdlib> of the emulator: half and bfloat as 16-bit storage types that convert to
// and from float with tilec's conversions (round to nearest even, docs/semantics.md).
std::string metal_stdlib() {
  return "// metal_stdlib of tilec's emulator: half and bfloat over tilec's conversions; the\n"
         "// rest of the MSL names is in tilec/emu/metal.h, force-included before the source.\n"
         "#pragma once\n#include <math.h>\n#include <stdint.h>\n#include <string.h>\n" +
         renamed_section("f16",
                         {"bits_to_f32", "f32_to_bits", "f16_to_f32", "f32_to_f16", "round_f16"}) +
         renamed_section("bf16", {"bf16_to_f32", "f32_to_bf16", "round_bf16"}) + R"MSL(
struct half {
  uint16_t bits;
  half() = default;
  half(float f) : bits(tilec_emu_f32_to_f16(f)) {}
  operator float() const { return tilec_emu_f16_to_f32(bits); }
};
struct bfloat {
  uint16_t bits;
  bfloat() = default;
  bfloat(float f) : bits(tilec_emu_f32_to_bf16(f)) {}
  operator float() const { return tilec_emu_bf16_to_f32(bits); }
};
)MSL";
}

}  // namespace

std::vector<exec::EmulatedKernel> metal_emulated_kernels(const backend::CodeArtifact& device) {
  static const std::regex signature(
      R"re(\[\[max_total_threads_per_threadgroup\((\d+)\)\]\]\s*kernel void (\w+)\()re");
  std::vector<exec::EmulatedKernel> kernels;
  for (std::sregex_iterator it(device.source.begin(), device.source.end(), signature), end;
       it != end; ++it) {
    kernels.push_back({(*it)[2].str(), std::stoll((*it)[1].str())});
  }
  return kernels;
}

std::vector<std::string> metal_emulated_compile_options(const backend::CodeArtifact&) {
  return {"-I", fmt::format("emu_include/{}", kShimDir)};
}

exec::EmulatorDialect metal_emulator_dialect() {
  return exec::EmulatorDialect{
      .format = "metal",
      .language = "Metal Shading Language",
      .header = "tilec/emu/metal.h",
      .files = {{"tilec/emu/metal.h", std::string(emulator_metal_header_text())},
                {std::string(kShimDir) + "/metal_stdlib", metal_stdlib()}},
      .kernels = &metal_emulated_kernels,
      .compile_options = &metal_emulated_compile_options,
  };
}

}  // namespace tilec::metal
