// CodeGenHIP: HIP C++ from SIMT-lowered tile IR. HIP is CUDA's language on AMD GPUs, so
// this is CodeGenCUDA with what HIP spells or sizes differently overridden:
//   - the runtime headers (hip/hip_runtime.h; hiprtc includes them itself) and float16
//     through hip/hip_fp16.h's __half2float/__float2half_rn; bfloat16 and float8 through
//     tilec's own conversions (the C preamble's, compiled for host and device), since
//     ROCm 5.2 has no hip_bf16.h with CUDA's names;
//   - subgroup reductions as __shfl_xor butterflies over the wavefront (64 lanes on CDNA,
//     32 on RDNA; HIP's shuffles take no lane mask);
//   - shared tiles: LDS of 64 KiB per workgroup, all of it static (no 48 KB split);
//     a kernel needing more is an error naming the bytes and the limit;
//   - the MFMA gemm's helpers (mfma_gemm.h) on __builtin_amdgcn_mfma_*;
//   - a bounds violation traps with __builtin_trap.
// Atomics are CUDA's names, which HIP defines (atomicAdd/Max/Min/And/Or/Xor/CAS on 32-
// and 64-bit words), so CodeGenCUDA's helpers serve; __launch_bounds__(threads) is HIP's
// too (the flat workgroup size the compiler may assume).
#pragma once

#include "tilec/cuda/codegen_cuda.h"

namespace tilec::rocm {

class CodeGenHIP : public cuda::CodeGenCUDA {
 public:
  // `arch` ("gfx90a") names the source's target; `wavefront` is the subgroup size;
  // `lds_bytes` the shared memory a workgroup may use (0: unchecked).
  CodeGenHIP(std::string arch, int64_t wavefront, int64_t lds_bytes)
      : arch_(std::move(arch)), wavefront_(wavefront), lds_bytes_(lds_bytes) {}
  std::string source_format() const override { return "hip"; }

 protected:
  void print_preamble(std::ostream& os) override;
  std::string source_banner() override;
  std::string preamble_includes() override;
  std::string float16_helpers() override;
  std::string bfloat16_helpers() override;
  std::string float8_helpers() override;
  std::string subgroup_helpers() override;
  int64_t static_shared_limit() const override { return lds_bytes_ > 0 ? lds_bytes_ : 65536; }
  Printed print_extern_call(const ir::CallNode* op) override;
  void print_function_signature(const ir::PrimFunc& func) override;

 private:
  std::string arch_;
  int64_t wavefront_;
  int64_t lds_bytes_;
};

backend::DeviceCodegen make_hip_device_codegen();

}  // namespace tilec::rocm
