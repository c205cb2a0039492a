// CodeGenCuTe: the CuTe variant's device code, CodeGenCUDA's CUDA C++ on top of the
// CUTLASS/CuTe headers (cutlass_headers.h): it includes <cute/tensor.hpp> and holds
// float16/bfloat16 values through CuTe's numeric types (cute::half_t, cute::bfloat16_t,
// round-to-nearest-even conversions). The variant's own tile ops (cute_gemm.h) reach it
// as calls of tilec_cute_* functions, printed as its CuTe helpers (namespace
// tilec_cute, in the preamble when used): tilec_cute::gemm_ss builds cute::Tensors over
// the shared tiles (make_smem_ptr, make_layout) and over the thread's accumulator
// registers (make_rmem_ptr, partition_shape_C), partitions them with the TiledMMA
// (thr_mma.partition_A/B) and runs cute::copy into the operand fragments and
// cute::gemm. The artifact's metadata
// "cuda_options" carries the include paths the CUDA execution backends add, and its
// preamble names the header directory, so the kernel cache key records it.
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
  Printed print_extern_call(const ir::CallNode* op) override;

 private:
  std::filesystem::path cutlass_include_;
};

// Throws ir::IRError with cutlass_unavailable_reason() when the headers are missing.
backend::DeviceCodegen make_cute_device_codegen();

}  // namespace tilec::cute
