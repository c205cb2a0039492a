#include "tilec/rocm/emulator_dialect.h"

#include "tilec/codegen/c_preamble.h"
#include "tilec/cuda/emulator_dialect.h"
#include "tilec/rocm/hip_target.h"

#include <fmt/format.h>

namespace tilec::rocm {

// Embedded from include/tilec/emu/hip.h at build time (src/rocm/CMakeLists.txt).
std::string_view emulator_hip_header_text();

namespace {

constexpr const char* kShimDir = "hip_shim";

// hip_fp16.h's names on the C preamble's float16 section, its functions renamed
// (tilec_X -> tilec_emu_X) so the source's own tilec_f16_to_f32 & co. stay free.
std::string fp16_header() {
  std::string out =
      "// hip/hip_fp16.h of the emulator: __half with tilec's float16 conversions.\n"
      "#pragma once\n#include <math.h>\n#include <stdint.h>\n#include <string.h>\n";
  const char* names[] = {"bits_to_f32", "f32_to_bits", "f16_to_f32", "f32_to_f16", "round_f16"};
  for (const char* n : names) out += fmt::format("#define tilec_{0} tilec_emu_{0}\n", n);
  out += codegen::c_preamble_helper("f16");
  for (const char* n : names) out += fmt::format("#undef tilec_{}\n", n);
  out += R"HIP(
struct __half {
  unsigned short __x;
};
inline __half __ushort_as_half(unsigned short bits) { return __half{bits}; }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline float __half2float(__half h) { return tilec_emu_f16_to_f32(h.__x); }
inline __half __float2half_rn(float f) { return __half{tilec_emu_f32_to_f16(f)}; }
inline __half __float2half(float f) { return __float2half_rn(f); }
)HIP";
  return out;
}

int64_t wavefront_of(const backend::CodeArtifact& device) {
  auto found = device.metadata.find("target");
  if (found == device.metadata.end()) return 64;
  return hip_wavefront_size(target::Target::parse(found->second));
}

}  // namespace

std::vector<std::string> hip_emulated_compile_options(const backend::CodeArtifact& device) {
  return {"-I", fmt::format("emu_include/{}", kShimDir),
          fmt::format("-DTILEC_EMU_HIP_WAVEFRONT={}", wavefront_of(device))};
}

exec::EmulatorDialect hip_emulator_dialect() {
  return exec::EmulatorDialect{
      .format = "hip",
      .language = "HIP C++",
      .header = "tilec/emu/hip.h",
      .files = {{"tilec/emu/hip.h", std::string(emulator_hip_header_text())},
                {std::string(kShimDir) + "/hip/hip_fp16.h", fp16_header()}},
      // CodeGenHIP prints CodeGenCUDA's kernel signatures.
      .kernels = &cuda::cuda_emulated_kernels,
      .compile_options = &hip_emulated_compile_options,
  };
}

}  // namespace tilec::rocm
