// CodeGenMetal: Metal Shading Language from SIMT-lowered tile IR, a CodeGenC that overrides
// only what MSL spells differently:
//   - `kernel void` entries with `[[max_total_threads_per_threadgroup(N)]]`, buffers as
//     `device T* name [[buffer(i)]]` (`device const T*` when read-only), scalars as
//     `constant T& name [[buffer(i)]]`, and, last, always these three attribute arguments in
//     this order: `uint3 tilec_group_id [[threadgroup_position_in_grid]]`,
//     `uint3 tilec_thread_id [[thread_position_in_threadgroup]]`,
//     `uint tilec_thread_index [[thread_index_in_threadgroup]]` (the emulator's MSL shim,
//     tilec/emu/metal.h, fills them from the running thread by that position);
//   - `threadgroup` arrays for shared tiles, `threadgroup_barrier(mem_flags::mem_threadgroup)`
//     (plus mem_device for a global hazard); the tiles of one kernel must fit Metal's 32 KiB
//     of threadgroup memory (kMaxThreadgroupBytes), checked when the source is printed;
//   - float16 stored as `half`, bfloat16 as `bfloat` (Metal 3.1), both computed in float and
//     rounded after every operation as the interpreter does; float8 in software (as OpenCL);
//     float64 has no Metal type and is refused;
//   - subgroup reductions (gpu/subgroup.h) over 32-lane simdgroups: `simd_sum` for sums, a
//     `simd_shuffle_xor` butterfly for max/min;
//   - the simdgroup-matrix gemm's helper (simdgroup_gemm.h), atomics through MSL's
//     atomic_int/atomic_uint/atomic_float;
//   - a zero integer divisor is reported as the CPU targets report it: the kernel takes one
//     more buffer, `device atomic_int* tilec_status` (after the launch's arguments), and sets
//     it to TILEC_STATUS_DIVISION_BY_ZERO.
// Vector moves print as element loops: MSL names an address space in every pointer cast,
// and the loops are left to the Metal compiler to widen.
#pragma once

#include "tilec/backend/device_codegen.h"
#include "tilec/codegen/codegen_c.h"

namespace tilec::metal {

// Threadgroup memory one Metal threadgroup may use (MTLDevice.maxThreadgroupMemoryLength on
// Apple GPUs).
inline constexpr int64_t kMaxThreadgroupBytes = 32 * 1024;

// The names of the attribute arguments every kernel ends with (see above).
inline constexpr const char* kGroupIdParam = "tilec_group_id";
inline constexpr const char* kThreadIdParam = "tilec_thread_id";
inline constexpr const char* kThreadIndexParam = "tilec_thread_index";

class CodeGenMetal : public codegen::CodeGenC {
 public:
  std::string source_format() const override { return "metal"; }

 protected:
  // C's reserved words and MSL's address spaces, types and vector types.
  bool is_reserved_word(const std::string& name) const override;
  void print_preamble(std::ostream& os) override;
  std::string address_space(ir::StorageScope scope) override;
  std::string restrict_keyword() override { return ""; }
  std::string type_name(ir::DataType t) override;
  std::string storage_type_name(ir::DataType t) override;
  std::string thread_index(const std::string& tag) override;
  std::vector<std::string> loop_pragmas(ir::ForKind kind) override;
  std::string math_function(const std::string& name, ir::DataType t) override;
  std::string atomic_function(const ir::CallNode* op, const ir::Buffer& buffer) override;
  std::string param_declaration(const ir::Param& param) override;
  void print_function_signature(const ir::PrimFunc& func) override;
  void print_function_epilogue(const ir::PrimFunc& func) override {}
  void print_division_by_zero_exit(const ir::PrimFunc& func) override;
  std::string zero_checked_division(const std::string& fn, const std::string& a,
                                    const std::string& b) override;
  void print_thread_binding_loop(const ir::ForNode* op) override { bind_loop_to_thread(op); }
  void print_allocate(const ir::AllocateNode* op) override;
  void print_barrier(const ir::CallNode* op) override;
  // 16-bit float atomics (a compare-and-swap on the word holding the element).
  Printed print_call(const ir::CallNode* op) override;
  Printed print_extern_call(const ir::CallNode* op) override;

 private:
  int next_buffer_index_ = 0;  // [[buffer(i)]] of the next parameter
  int64_t block_threads_ = 1;
};

// Threads per threadgroup of a device function: the product of its threadIdx extents.
int64_t metal_block_threads(const ir::PrimFunc& func);
// Bytes of the threadgroup tiles a device function allocates (16-byte aligned each).
int64_t metal_threadgroup_bytes(const ir::PrimFunc& func);

backend::DeviceCodegen make_metal_device_codegen();

}  // namespace tilec::metal
