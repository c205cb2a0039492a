#include "tilec/cute/codegen_cute.h"

#include "tilec/codegen/device_source.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/exec/cuda_toolkit.h"

#include <fmt/format.h>

namespace tilec::cute {

std::string CodeGenCuTe::preamble_includes() {
  return fmt::format(
      "/* CuTe variant: CUTLASS/CuTe {} headers from {} */\n#include <cute/tensor.hpp>\n",
      kPinnedCutlassVersion, cutlass_include_.string());
}

std::string CodeGenCuTe::float16_helpers() {
  return R"CU(
static __device__ __forceinline__ float tilec_f16_to_f32(uint16_t h) { return float(cute::half_t::bitcast(h)); }
static __device__ __forceinline__ uint16_t tilec_f32_to_f16(float f) { return cute::half_t(f).raw(); }
static __device__ __forceinline__ float tilec_round_f16(float f) { return tilec_f16_to_f32(tilec_f32_to_f16(f)); }
)CU";
}

std::string CodeGenCuTe::bfloat16_helpers() {
  return R"CU(
static __device__ __forceinline__ float tilec_bf16_to_f32(uint16_t h) { return float(cute::bfloat16_t::bitcast(h)); }
static __device__ __forceinline__ uint16_t tilec_f32_to_bf16(float f) { return cute::bfloat16_t(f).raw(); }
static __device__ __forceinline__ float tilec_round_bf16(float f) { return tilec_bf16_to_f32(tilec_f32_to_bf16(f)); }
)CU";
}

namespace {

std::filesystem::path require_cutlass() {
  auto dir = cutlass_include_dir();
  if (!dir) throw ir::IRError("cute codegen: " + cutlass_unavailable_reason());
  return *dir;
}

backend::CodeArtifact build_cute_source(const ir::IRModule& mod, const target::Target& target) {
  std::filesystem::path include = require_cutlass();
  CodeGenCuTe cg(include);
  backend::CodeArtifact artifact = codegen::build_device_source(mod, target, cg);
  artifact.metadata["cuda_options"] = "-I" + include.string();
  return artifact;
}

}  // namespace

backend::DeviceCodegen make_cute_device_codegen() {
  return backend::DeviceCodegen{
      .name = "cute", .build = {}, .build_without_compile = build_cute_source};
}

}  // namespace tilec::cute
