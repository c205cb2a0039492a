// CodeGenOpenCL: OpenCL C from SIMT-lowered tile IR, a CodeGenC that overrides only what
// OpenCL spells differently: `__kernel void` entries with `__global` parameters,
// `__local` workgroup tiles, get_group_id/get_local_id for the block and thread
// bindings, barrier(CLK_LOCAL_MEM_FENCE) (with CLK_GLOBAL_MEM_FENCE for global
// hazards), overloaded math built-ins, its own preamble (fixed-width integer names,
// floor division, FP_CONTRACT off as the interpreter rounds every operation). float16 is
// stored as ushort and computed in float, rounded after every operation; it converts
// through `half` (as_half, convert_half_rte) on a device with cl_khr_fp16, chosen by
// the OpenCL compiler from the device's extension list, else with
// vload_half/vstore_half_rte, which every device has. bfloat16 is stored as ushort and
// converted bitwise. A zero integer divisor yields 0
// and is reported as the CPU targets report it: a kernel that divides by a
// non-constant takes one more parameter, its status word (codegen::kDeviceStatusParam,
// see runtime/abi.h), and sets it to TILEC_STATUS_DIVISION_BY_ZERO.
#pragma once

#include "tilec/backend/device_codegen.h"
#include "tilec/codegen/codegen_c.h"

namespace tilec::opencl {

class CodeGenOpenCL : public codegen::CodeGenC {
 public:
  std::string source_format() const override { return "opencl"; }
  std::string source_file_extension() const override { return "cl"; }

 protected:
  // C's reserved words and OpenCL C's types, address spaces and work-item functions.
  bool is_reserved_word(const std::string& name) const override;
  void print_preamble(std::ostream& os) override;
  std::string address_space(ir::StorageScope scope) override;
  std::string storage_type_name(ir::DataType t) override;
  std::string thread_index(const std::string& tag) override;
  std::vector<std::string> loop_pragmas(ir::ForKind kind) override;
  std::string math_function(const std::string& name, ir::DataType t) override;
  // 32-bit integer and float32 elements of __global, __local or private buffers.
  std::string atomic_function(const ir::CallNode* op, const ir::Buffer& buffer) override;
  void print_function_signature(const ir::PrimFunc& func) override;
  void print_function_epilogue(const ir::PrimFunc& func) override {}
  void print_division_by_zero_exit(const ir::PrimFunc& func) override;
  std::string zero_checked_division(const std::string& fn, const std::string& a,
                                    const std::string& b) override;
  void print_thread_binding_loop(const ir::ForNode* op) override { bind_loop_to_thread(op); }
  void print_allocate(const ir::AllocateNode* op) override;
  void print_barrier(const ir::CallNode* op) override;
  // gpu/subgroup.h's calls through cl_khr_subgroups (sub_group_reduce_add, ...).
  Printed print_extern_call(const ir::CallNode* op) override;
  // vstoreN(vloadN(...)) on the buffers' storage types (float16 and bfloat16 as ushortN).
  void print_vector_move(const ir::StoreNode* op, const ir::LoadNode* src) override;
};

backend::DeviceCodegen make_opencl_device_codegen();

}  // namespace tilec::opencl
