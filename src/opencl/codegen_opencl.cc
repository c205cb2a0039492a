#include "tilec/opencl/codegen_opencl.h"

#include "tilec/codegen/c_preamble.h"
#include "tilec/codegen/device_source.h"
#include "tilec/codegen/narrow_float.h"
#include "tilec/codegen/text_sections.h"
#include "tilec/gpu/subgroup.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

#include <set>

namespace tilec::opencl {

using namespace ir;
using codegen::Float8Dialect;

// src/opencl/text/tilec_opencl_helpers.cl, embedded at build time (CMakeLists.txt).
std::string_view opencl_helpers_text();

namespace {

// One section of the OpenCL helper file, with runtime/abi.h's status codes.
const std::string& helper_text(const std::string& section) {
  static const codegen::TextSections sections(
      "src/opencl/text/tilec_opencl_helpers.cl", opencl_helpers_text(),
      {{"TILEC_STATUS_DIVISION_BY_ZERO", codegen::kStatusDivisionByZero}});
  return sections.get(section);
}

}  // namespace

bool CodeGenOpenCL::is_reserved_word(const std::string& name) const {
  // A kernel's `half = n >> 1` must not become a declaration of type half.
  static const std::set<std::string> words = {
      "half",    "uint",    "uchar",        "ushort",       "ulong",          "kernel",
      "global",  "local",   "constant",     "private",      "image2d_t",      "sampler_t",
      "event_t", "char2",   "char4",        "int2",         "int4",           "uint2",
      "uint4",   "float2",  "float3",       "float4",       "double2",        "double4",
      "half2",   "barrier", "get_local_id", "get_group_id", "get_local_size", "get_global_id"};
  return words.count(name) != 0 || CodeGenC::is_reserved_word(name);
}

std::string CodeGenOpenCL::atomic_function(const CallNode* op, const Buffer& buffer) {
  DataType t = op->dtype;
  std::string space = buffer->scope == StorageScope::kGlobal   ? "global"
                      : buffer->scope == StorageScope::kShared ? "local"
                                                               : "private";
  if (t.is_float() && t.bits == 16) {
    const char* s = t.is_bfloat16() ? "bf16" : "f16";
    require_helper(s);
    require_helper("atomic16");
    require_helper(std::string("atomic16_") + s);
    return fmt::format("tilec_{}_{}_{}", op->name, s, space);
  }
  if (t.bits != 32)
    throw IRError(fmt::format(
        "opencl codegen: T.{} on a {} element of '{}': OpenCL 1.2 has 32-bit atomics only "
        "(16-bit floats are updated through their 32-bit word); use an int32, uint32, "
        "float32, float16 or bfloat16 buffer",
        op->name, t.str(), buffer->name));
  require_helper("atomic");
  return fmt::format("tilec_{}_{}32_{}", op->name,
                     t.is_float()  ? "f"
                     : t.is_uint() ? "u"
                                   : "i",
                     space);
}

codegen::CodeGenC::Printed CodeGenOpenCL::print_extern_call(const CallNode* op) {
  if (!gpu::is_subgroup_call(op->name)) return CodeGenC::print_extern_call(op);
  require_helper("subgroups");
  const std::string& n = op->name;
  if (n == gpu::kSubgroupId) return {"(int)get_sub_group_id()", kUnaryPrec};
  if (n == gpu::kSubgroupLocalId) return {"(int)get_sub_group_local_id()", kUnaryPrec};
  if (n == gpu::kSubgroupSize) return {"(int)get_sub_group_size()", kUnaryPrec};
  if (n == gpu::kNumSubgroups) return {"(int)get_num_sub_groups()", kUnaryPrec};
  std::string combination = n.substr(std::string(gpu::kSubgroupReducePrefix).size());
  return {fmt::format("sub_group_reduce_{}({})", combination == "sum" ? "add" : combination,
                      print(op->args.at(0)).text),
          kPrimary};
}

void CodeGenOpenCL::print_preamble(std::ostream& os) {
  // Subgroup functions are core in OpenCL C 2.1+, an extension before.
  if (uses_helper("subgroups")) os << "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n";
  os << helper_text("types");
  if (uses_helper("floordiv")) os << helper_text("floordiv");
  if (uses_helper("f16")) os << helper_text("f16");
  if (uses_helper("bf16")) os << helper_text("bf16");
  // float8 is stored as uchar and converted in software (OpenCL has no 8-bit floats).
  Float8Dialect cl{"static inline", "as_uint({})", "as_float({})", "rint"};
  if (uses_helper("f8e4m3")) os << codegen::float8_helper_source(DataType::Float8E4M3(), cl);
  if (uses_helper("f8e5m2")) os << codegen::float8_helper_source(DataType::Float8E5M2(), cl);
  if (uses_helper("atomic")) os << helper_text("atomic");
  if (uses_helper("atomic16")) os << helper_text("atomic16");
  if (uses_helper("atomic16_f16")) os << helper_text("atomic16_f16");
  if (uses_helper("atomic16_bf16")) os << helper_text("atomic16_bf16");
}

std::string CodeGenOpenCL::address_space(StorageScope scope) {
  switch (scope) {
    case StorageScope::kGlobal:
      return "__global";
    case StorageScope::kShared:
      return "__local";
    default:
      return "";
  }
}

std::string CodeGenOpenCL::storage_type_name(DataType t) {
  // OpenCL buffers cannot hold `bool`; DLPack bools are bytes.
  if (t.lanes == 1 && t.is_bool()) return "uchar";
  return CodeGenC::storage_type_name(t);
}

std::string CodeGenOpenCL::thread_index(const std::string& tag) {
  static const std::map<std::string, std::string> indices = {
      {"blockIdx.x", "get_group_id(0)"},  {"blockIdx.y", "get_group_id(1)"},
      {"blockIdx.z", "get_group_id(2)"},  {"threadIdx.x", "get_local_id(0)"},
      {"threadIdx.y", "get_local_id(1)"}, {"threadIdx.z", "get_local_id(2)"}};
  auto it = indices.find(tag);
  if (it == indices.end()) {
    throw IRError("opencl codegen: unknown thread tag '" + tag +
                  "'; known: blockIdx.x/y/z, threadIdx.x/y/z");
  }
  return "(int)" + it->second;
}

std::vector<std::string> CodeGenOpenCL::loop_pragmas(ForKind kind) {
  if (kind == ForKind::kUnrolled) return {"#pragma unroll 8"};
  return {};
}

std::string CodeGenOpenCL::math_function(const std::string& name, DataType) {
  // OpenCL's built-ins are overloaded on float and double; its rint is C's nearbyint.
  return name == "nearbyint" ? "rint" : name;
}

void CodeGenOpenCL::print_function_signature(const PrimFunc& func) {
  std::string params;
  for (const auto& p : func->params) {
    if (!p.is_buffer() && p.var.dtype().is_bool()) {
      throw IRError("opencl codegen: kernel '" + func->name + "' has a bool scalar parameter '" +
                    p.name() + "', which OpenCL kernels cannot take; pass an int32");
    }
    params += (params.empty() ? "" : ", ") + param_declaration(p);
  }
  if (may_divide_by_zero(func->body))
    params +=
        std::string(params.empty() ? "" : ", ") + "__global int* " + codegen::kDeviceStatusParam;
  line() << "__kernel void " << function_name(func) << "(" << (params.empty() ? "void" : params)
         << ") ";
}

std::string CodeGenOpenCL::zero_checked_division(const std::string& fn, const std::string& a,
                                                 const std::string& b) {
  return fmt::format("{}_checked({}, {}, &tilec_div0)", fn, a, b);
}

void CodeGenOpenCL::print_division_by_zero_exit(const PrimFunc& func) {
  line() << fmt::format("if (tilec_div0) atomic_max({}, TILEC_STATUS_DIVISION_BY_ZERO);\n",
                        codegen::kDeviceStatusParam);
}

void CodeGenOpenCL::print_allocate(const AllocateNode* op) {
  const Buffer& b = op->buffer;
  if (b->scope == StorageScope::kVar) return CodeGenC::print_allocate(op);
  Expr numel = make_int(1, DataType::Int64());
  for (const auto& d : b->shape) numel = numel * cast(DataType::Int64(), d);
  numel = transform::simplify(numel);
  const int64_t* count = as_const_int(numel);
  if (!count) {
    throw IRError(fmt::format(
        "opencl codegen: '{}' ({}) has a symbolic size; OpenCL kernels allocate tiles of "
        "constant size only",
        b->name, to_string(b->scope)));
  }
  std::string space = address_space(b->scope);
  std::string name = declare_buffer(b);
  // 16-byte aligned, so the vector moves into and out of tiles and registers are aligned.
  line() << fmt::format("{}{} {}[{}] __attribute__((aligned(16)));\n",
                        space.empty() ? "" : space + " ", storage_type_name(b->dtype), name,
                        std::max<int64_t>(*count, 1));
  print_stmt(op->body);
}

void CodeGenOpenCL::print_barrier(const CallNode* op) {
  bool global = op->name == to_string(StorageScope::kGlobal);
  line() << (global ? "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
                    : "barrier(CLK_LOCAL_MEM_FENCE);\n");
}

void CodeGenOpenCL::print_vector_move(const StoreNode* op, const LoadNode* src) {
  int lanes = src->dtype.lanes;
  line() << fmt::format("vstore{0}(vload{0}(0, {1} + {2}), 0, {3} + {4});\n", lanes,
                        buffer_name(src->buffer), flat_index(src->buffer, src->indices),
                        buffer_name(op->buffer), flat_index(op->buffer, op->indices));
}

backend::DeviceCodegen make_opencl_device_codegen() {
  return codegen::make_device_codegen(
      "opencl", [](const target::Target&) { return std::make_unique<CodeGenOpenCL>(); });
}

}  // namespace tilec::opencl
