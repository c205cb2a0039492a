// The cpu backend's device codegen: each device PrimFunc of a lowered module as a
// static C function plus its task function (c_launch_abi.h), printed by
// codegen::build_device_source with a CodeGenCDevice. Registered for target kind
// `c`; only build_without_compile exists, since the native execution backend
// compiles host and device C together. A bounds-checked function (transform/
// bounds_check.h) reports its violations through its TilecBoundsRecord parameter
// (codegen/bounds_record.h) and returns TILEC_STATUS_OUT_OF_BOUNDS, freeing the heap
// tiles in scope first.
#pragma once

#include "tilec/backend/device_codegen.h"
#include "tilec/codegen/codegen_c.h"
#include "tilec/ir/bounds_call.h"

#include <set>

namespace tilec::cpu {

class CodeGenCDevice : public codegen::CodeGenC {
 public:
  // vector_bytes: the target's vector register (cpu_resources.h); 64 asks gcc to use
  // whole AVX-512 registers, which it otherwise avoids on Intel CPUs
  // (-mprefer-vector-width=256), halving the gemm micro-kernel's width.
  explicit CodeGenCDevice(int64_t vector_bytes = 0) : vector_bytes_(vector_bytes) {}
  // The function itself (static) plus its task function; returns the task's name.
  std::string add_device_function(const ir::PrimFunc& func) override;
  // TilecKernelArg, which the task functions unpack.
  std::string device_declarations() override;

 protected:
  std::string function_qualifiers(const ir::PrimFunc& func) override { return "static"; }
  void print_evaluate(const ir::EvaluateNode* op) override;
  void print_allocate(const ir::AllocateNode* op) override;
  // A prefetch (cpu/prefetch.h) as __builtin_prefetch of the element's address; a
  // transpose_tile (cpu/transpose_tile.h) as a call of its helper, defined in
  // device_declarations().
  Printed print_call(const ir::CallNode* op) override;
  // A vectorized loop whose body is one linear guard prints with the guard folded into
  // its bounds (guarded_loop_bounds.h): GCC would mask every vector of it otherwise.
  void print_for(const ir::ForNode* op) override;

 private:
  void print_bounds_call(const ir::BoundsCall& op);
  // `{ tilec_free(...)...; return TILEC_STATUS_OUT_OF_BOUNDS; }` on the current line.
  void print_bounds_exit();

  std::set<int64_t> transpose_lanes_;   // the transpose_tile helpers the functions call
  std::vector<ir::Buffer> heap_tiles_;  // heap-allocated tiles in scope, outermost first
  int64_t vector_bytes_;
};

backend::CodeArtifact generate_c_device(const ir::IRModule& mod, const target::Target& target);
backend::DeviceCodegen make_c_device_codegen();  // name "c"

}  // namespace tilec::cpu
