// CodeGenCuTe: the CuTe variant's device code, CodeGenCUDA's CUDA C++ on top of the
// CUTLASS/CuTe headers (cutlass_headers.h): it includes <cute/tensor.hpp> and holds
// float16/bfloat16 values through CuTe's numeric types (cute::half_t, cute::bfloat16_t,
// round-to-nearest-even conversions). The variant's own tile ops (cute_gemm.h) reach it
// as calls of tilec_cute_* functions, printed as its CuTe helpers (namespace
// tilec_cute, in the preamble when used): tilec_cute::gemm_ss builds cute::Tensors over
// the shared tiles (make_smem_ptr, make_layout) and over the thread's accumulator
// registers (make_rmem_ptr, partition_shape_C), partitions them with the TiledMMA
// (thr_mma.partition_A/B) and runs cute::copy into the operand fragments and
// cute::gemm (on SM90, wgmma through GMMA atoms, reading the tiles in the GMMA layouts
// cuda.swizzle_shared placed them in; shared tiles start kGmmaTileAlignment-aligned, as
// the layouts' swizzle on the absolute address needs). The artifact's metadata
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

  // Whether a printed gemm runs on SM90's GMMA atoms (the kernel then compiles for sm_90a).
  bool uses_gmma() const { return uses_gmma_; }

 protected:
  std::string preamble_includes() override;
  std::string float16_helpers() override;
  std::string bfloat16_helpers() override;
  Printed print_extern_call(const ir::CallNode* op) override;

 private:
  int64_t shared_alignment() const override;

  std::filesystem::path cutlass_include_;
  bool uses_gmma_ = false;
};

// The preamble section of the GMMA layouts (SmemLayout<T, code, rows, cols>::make() and
// smem_offset<code, rows, cols, bytes>(flat)), host- and device-callable; for tests.
std::string gmma_layout_helpers();

// Throws ir::IRError with cutlass_unavailable_reason() when the headers are missing.
backend::DeviceCodegen make_cute_device_codegen();

}  // namespace tilec::cute
