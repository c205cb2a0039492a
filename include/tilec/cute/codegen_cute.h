// CodeGenCuTe: the CuTe variant's device code, CodeGenCUDA's CUDA C++ on top of the
// CUTLASS/CuTe headers (cutlass_headers.h): it includes <cute/tensor.hpp> and holds
// float16/bfloat16 values through CuTe's numeric types (cute::half_t, cute::bfloat16_t,
// round-to-nearest-even conversions). The tile ops reach it already lowered by the
// shared SIMT pipeline (the variant reuses the cuda pipeline); emitting them as
// cute::copy / cute::gemm with SM80/SM90 MMA atoms is not done yet. The artifact's
// metadata "cuda_options" carries the include paths the CUDA execution backends add,
// and its preamble names the header directory, so the kernel cache key records it.
#pragma once

#include "tilec/cuda/codegen_cuda.h"

#include <filesystem>

namespace tilec::cute {

class CodeGenCuTe : public cuda::CodeGenCUDA {
 public:
  explicit CodeGenCuTe(std::filesystem::path cutlass_include)
      : cutlass_include_(std::move(cutlass_include)) {}

 protected:
  std::string preamble_includes() override;
  std::string float16_helpers() override;
  std::string bfloat16_helpers() override;

 private:
  std::filesystem::path cutlass_include_;
};

// Throws ir::IRError with cutlass_unavailable_reason() when the headers are missing.
backend::DeviceCodegen make_cute_device_codegen();

}  // namespace tilec::cute
