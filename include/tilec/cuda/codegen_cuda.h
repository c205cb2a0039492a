// CodeGenCUDA: CUDA C++ from SIMT-lowered tile IR, a CodeGenC that overrides only what
// CUDA spells differently: `extern "C" __global__` entries with __launch_bounds__(the
// block's thread count) and __restrict__ parameters, `__shared__` tiles (placed in one
// dynamic `extern __shared__` array when a kernel's tiles exceed 48 KB, whose size the
// source publishes as `tilec_dynamic_shared_bytes_<kernel>` for the launch, see
// exec/cuda_backends.h), blockIdx/threadIdx, __syncthreads(), and float16/bfloat16
// conversions through cuda_fp16.h/cuda_bf16.h (values are held in float and rounded
// after every operation, as the interpreter does; the execution backends compile with
// --fmad=false for the same reason). The source compiles with NVRTC (no system headers)
// and with nvcc. A zero integer divisor yields 0 and is reported as the CPU targets
// report it: a kernel that divides by a non-constant defines the module variable
// `tilec_status_<kernel>` (kDeviceStatusPrefix), sets it to
// TILEC_STATUS_DIVISION_BY_ZERO, and the launch zeroes it before and reads it after.
#pragma once

#include "tilec/backend/device_codegen.h"
#include "tilec/codegen/codegen_c.h"
#include "tilec/cuda/shared_memory_limit.h"
#include "tilec/exec/device_symbols.h"

namespace tilec::cuda {

using exec::kDeviceStatusPrefix;

class CodeGenCUDA : public codegen::CodeGenC {
 public:
  // `arch` ("sm_80"; "" checks no limit): a kernel whose shared tiles exceed
  // the arch's shared memory per block (shared_memory_limit.h) is an ir::IRError naming
  // the kernel, the bytes, the limit and what to change.
  explicit CodeGenCUDA(std::string arch = "") : arch_(std::move(arch)) {}
  std::string source_format() const override { return "cuda"; }
  std::string source_file_extension() const override { return "cu"; }

 protected:
  // C's reserved words and CUDA's vector types and built-in variables.
  bool is_reserved_word(const std::string& name) const override;
  void print_preamble(std::ostream& os) override;
  // 32-bit integer, float32 and float64 elements (CUDA atomics or compare-and-swap).
  std::string atomic_function(const ir::CallNode* op, const ir::Buffer& buffer) override;
  // Preamble sections a CUDA flavour may replace: text after the integer types (a
  // header library's includes), and the float16/bfloat16 conversion helpers
  // (tilec_f16_to_f32, tilec_f32_to_f16, tilec_round_f16 and the bf16 ones).
  virtual std::string preamble_includes() { return ""; }
  // The comment the source starts with (how to build it).
  virtual std::string source_banner();
  virtual std::string float16_helpers();  // the include, then float16_conversions()
  // tilec_f16_to_f32/tilec_f32_to_f16/tilec_round_f16 on __half2float, __float2half_rn and
  // __ushort_as_half/__half_as_ushort (CUDA's and HIP's fp16 headers share these names).
  static std::string float16_conversions();
  // gpu/subgroup.h's calls (warps of 32 lanes, __shfl_xor_sync butterflies).
  virtual std::string subgroup_helpers();
  // Shared tiles above this many bytes go to the dynamic extern array (CUDA: 48 KB).
  virtual int64_t static_shared_limit() const { return kStaticSharedLimitBytes; }
  virtual std::string bfloat16_helpers();
  // float8 (e4m3/e5m2) conversions: cuda_fp8.h's.
  virtual std::string float8_helpers();
  // The tensor-core gemm's ldmatrix/mma device functions (mma_gemm.h) take element
  // addresses; every other extern call prints as CodeGenC does.
  Printed print_extern_call(const ir::CallNode* op) override;
  std::string address_space(ir::StorageScope scope) override;
  std::string restrict_keyword() override { return "__restrict__"; }
  std::string thread_index(const std::string& tag) override;
  std::vector<std::string> loop_pragmas(ir::ForKind kind) override;
  void print_function_signature(const ir::PrimFunc& func) override;
  void print_function_epilogue(const ir::PrimFunc& func) override {}
  void print_division_by_zero_exit(const ir::PrimFunc& func) override;
  std::string zero_checked_division(const std::string& fn, const std::string& a,
                                    const std::string& b) override;
  void print_thread_binding_loop(const ir::ForNode* op) override { bind_loop_to_thread(op); }
  void print_allocate(const ir::AllocateNode* op) override;
  void print_barrier(const ir::CallNode* op) override;
  // Bounds calls (ir/bounds_call.h): a violation is tilec_bounds_violation(format, values)
  // -- on a GPU the message on the device's printf and a trap, so the launch fails before
  // the element is touched; on the device emulator the launch's error, as the CPU
  // backends report it. The stop at each block start prints nothing: no block runs after
  // a trap.
  void print_evaluate(const ir::EvaluateNode* op) override;
  // One 2/4/8/16-byte access each side, reinterpreted as ushort/uint/uint2/uint4 (any
  // dtype: the bits move unchanged); other sizes print CodeGenC's element loop.
  void print_vector_move(const ir::StoreNode* op, const ir::LoadNode* src) override;

  // Threads per block of a device function: the product of its threadIdx extents.
  static int64_t block_threads(const ir::PrimFunc& func);
  // The alignment every shared tile starts at, in bytes (16: a cp.async or vector move;
  // a subclass whose tiles need more, e.g. for a swizzle on the absolute address, raises it).
  virtual int64_t shared_alignment() const { return 16; }
  // Bytes of every shared tile the function allocates, each rounded up to shared_alignment().
  int64_t shared_bytes(const ir::PrimFunc& func) const;

 private:
  std::string arch_;
  bool dynamic_shared_ = false;  // this function's tiles live in the extern array
  int64_t shared_offset_ = 0;
};

backend::DeviceCodegen make_cuda_device_codegen();

}  // namespace tilec::cuda
