#include "tilec/metal/codegen_metal.h"

#include "tilec/codegen/c_preamble.h"
#include "tilec/codegen/device_source.h"
#include "tilec/codegen/narrow_float.h"
#include "tilec/codegen/text_sections.h"
#include "tilec/gpu/subgroup.h"
#include "tilec/ir/visitor.h"
#include "tilec/metal/simdgroup_gemm.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace tilec::metal {

using namespace ir;

// src/metal/text/tilec_metal_helpers.metal, embedded at build time (CMakeLists.txt).
std::string_view metal_helpers_text();

namespace {

// One section of the Metal helper file, with runtime/abi.h's status codes.
const std::string& helper_text(const std::string& section) {
  static const codegen::TextSections sections(
      "src/metal/text/tilec_metal_helpers.metal", metal_helpers_text(),
      {{"TILEC_STATUS_DIVISION_BY_ZERO", codegen::kStatusDivisionByZero}});
  return sections.get(section);
}

int64_t round_up(int64_t v, int64_t to) {
  return (v + to - 1) / to * to;
}

std::optional<int64_t> allocation_elements(const Buffer& b) {
  Expr numel = make_int(1, DataType::Int64());
  for (const auto& d : b->shape) numel = numel * cast(DataType::Int64(), d);
  numel = transform::simplify(numel);
  const int64_t* count = as_const_int(numel);
  if (!count) return std::nullopt;
  return std::max<int64_t>(*count, 1);
}

int64_t element_bytes(DataType t) {
  return t.is_bool() ? 1 : t.bytes();
}

}  // namespace

bool CodeGenMetal::is_reserved_word(const std::string& name) const {
  // A kernel's `half = n >> 1` or `device = ...` must not become a declaration.
  static const std::set<std::string> words = {
      "half",        "uint",     "uchar",  "ushort", "ulong",  "bfloat", "device", "thread",
      "threadgroup", "constant", "kernel", "metal",  "char2",  "char4",  "int2",   "int4",
      "uint2",       "uint3",    "uint4",  "float2", "float3", "float4", "half2",  "half4"};
  return words.count(name) != 0 || CodeGenC::is_reserved_word(name);
}

int64_t metal_block_threads(const PrimFunc& func) {
  int64_t threads = 1;
  post_order_visit(func->body, [&](const Stmt* s, const Expr*) {
    if (!s || s->kind() != StmtKind::kFor) return;
    const ForNode* f = s->as<ForNode>();
    if (f->thread_tag.rfind("threadIdx.", 0) != 0) return;
    const int64_t* begin = as_const_int(f->begin);
    const int64_t* end = as_const_int(f->end);
    if (begin && end) threads *= std::max<int64_t>(*end - *begin, 1);
  });
  return threads;
}

int64_t metal_threadgroup_bytes(const PrimFunc& func) {
  int64_t total = 0;
  post_order_visit(func->body, [&](const Stmt* s, const Expr*) {
    if (!s || s->kind() != StmtKind::kAllocate) return;
    const Buffer& b = s->as<AllocateNode>()->buffer;
    if (b->scope != StorageScope::kShared) return;
    if (auto n = allocation_elements(b)) total += round_up(*n * element_bytes(b->dtype), 16);
  });
  return total;
}

void CodeGenMetal::print_preamble(std::ostream& os) {
  os << helper_text("types");
  if (uses_helper("floordiv")) os << helper_text("floordiv");
  if (uses_helper("f16")) os << helper_text("f16");
  if (uses_helper("bf16")) os << helper_text("bf16");
  // float8 is stored as uchar and converted in software (Metal has no 8-bit floats).
  codegen::Float8Dialect msl{"inline", "as_type<uint>({})", "as_type<float>({})", "rint"};
  if (uses_helper("f8e4m3")) os << codegen::float8_helper_source(DataType::Float8E4M3(), msl);
  if (uses_helper("f8e5m2")) os << codegen::float8_helper_source(DataType::Float8E5M2(), msl);
  if (uses_helper("atomic")) os << helper_text("atomic");
  if (uses_helper("atomic16")) os << helper_text("atomic16");
  if (uses_helper("atomic16_f16")) os << helper_text("atomic16_f16");
  if (uses_helper("atomic16_bf16")) os << helper_text("atomic16_bf16");
  if (uses_helper("subgroups")) os << helper_text("subgroups");
  if (uses_helper("simdgroup_gemm")) os << helper_text("simdgroup_gemm");
}

std::string CodeGenMetal::address_space(StorageScope scope) {
  switch (scope) {
    case StorageScope::kGlobal:
      return "device";
    case StorageScope::kShared:
      return "threadgroup";
    default:
      return "";
  }
}

std::string CodeGenMetal::type_name(DataType t) {
  if (t.lanes == 1 && t.is_float() && t.bits == 64) {
    throw IRError(
        "metal codegen: a float64 value; Metal has no 64-bit floating point type. Use float32 "
        "(or compile for a target that has float64, e.g. cuda or the CPU)");
  }
  return CodeGenC::type_name(t);
}

std::string CodeGenMetal::storage_type_name(DataType t) {
  if (t.lanes == 1) {
    if (t.is_bool()) return "uchar";  // DLPack bools are bytes
    if (t == DataType::Float16()) return "half";
    if (t.is_bfloat16()) return "bfloat";
  }
  return CodeGenC::storage_type_name(t);
}

std::string CodeGenMetal::thread_index(const std::string& tag) {
  static const std::map<std::string, std::string> indices = {
      {"blockIdx.x", "x"},  {"blockIdx.y", "y"},  {"blockIdx.z", "z"},
      {"threadIdx.x", "x"}, {"threadIdx.y", "y"}, {"threadIdx.z", "z"}};
  auto it = indices.find(tag);
  if (it == indices.end()) {
    throw IRError("metal codegen: unknown thread tag '" + tag +
                  "'; known: blockIdx.x/y/z, threadIdx.x/y/z");
  }
  bool block = tag.rfind("blockIdx", 0) == 0;
  return fmt::format("(int){}.{}", block ? kGroupIdParam : kThreadIdParam, it->second);
}

std::vector<std::string> CodeGenMetal::loop_pragmas(ForKind kind) {
  if (kind == ForKind::kUnrolled) return {"#pragma unroll(8)"};
  return {};
}

std::string CodeGenMetal::math_function(const std::string& name, DataType) {
  // MSL's math functions are overloaded on float and half; its rint is C's nearbyint.
  if (name == "nearbyint") return "rint";
  // The Metal Shading Language's math library has no erf, log1p, expm1 or hypot.
  static const std::map<std::string, std::string> missing = {
      {"erf",
       "for GELU write its tanh form, 0.5 * x * (1 + T.tanh(0.7978845608 * (x + 0.044715 * x * x "
       "* x)))"},
      {"log1p", "write T.log(1 + x), which loses precision for |x| far below 1"},
      {"expm1", "write T.exp(x) - 1, which loses precision for |x| far below 1"},
      {"hypot", "write T.sqrt(x * x + y * y), which overflows where x * x does"}};
  if (auto it = missing.find(name); it != missing.end()) {
    throw IRError(fmt::format(
        "metal codegen: T.{} has no Metal Shading Language function (MSL's math library has "
        "no {}); {}, or compile for another target",
        name, name, it->second));
  }
  return name;
}

std::string CodeGenMetal::atomic_function(const CallNode* op, const Buffer& buffer) {
  DataType t = op->dtype;
  std::string space = buffer->scope == StorageScope::kGlobal   ? "device"
                      : buffer->scope == StorageScope::kShared ? "threadgroup"
                                                               : "";
  bool supported = t.bits == 32 && (t.is_integer() || t.is_float()) &&
                   !(t.is_float() && op->name != "atomic_add" && op->name != "atomic_max" &&
                     op->name != "atomic_min");
  if (space.empty() || !supported) {
    throw IRError(fmt::format(
        "metal codegen: T.{} on a {} element of '{}' ({}): Metal atomics here take 32-bit "
        "integers and float32 in device or threadgroup memory; use such a buffer",
        op->name, t.str(), buffer->name, to_string(buffer->scope)));
  }
  require_helper("atomic");
  return fmt::format("tilec_{}_{}32_{}", op->name,
                     t.is_float()  ? "f"
                     : t.is_uint() ? "u"
                                   : "i",
                     space);
}

std::string CodeGenMetal::param_declaration(const Param& param) {
  // CodeGenC declares the name (and the buffer's name for accesses); MSL adds the argument
  // table slot, and passes a scalar by constant reference.
  std::string declared = CodeGenC::param_declaration(param);
  int slot = next_buffer_index_++;
  if (param.is_buffer()) {
    std::string text = declared;
    if (auto twice = text.find("*  "); twice != std::string::npos) text.erase(twice + 1, 1);
    return fmt::format("{} [[buffer({})]]", text, slot);
  }
  std::string name = declared.substr(declared.rfind(' ') + 1);
  return fmt::format("constant {}& {} [[buffer({})]]", type_name(param.var.dtype()), name, slot);
}

void CodeGenMetal::print_function_signature(const PrimFunc& func) {
  int64_t bytes = metal_threadgroup_bytes(func);
  if (bytes > kMaxThreadgroupBytes) {
    throw IRError(fmt::format(
        "metal: kernel '{}' uses {} bytes of threadgroup memory, but a Metal threadgroup has at "
        "most {} (32 KiB); use smaller shared tiles (smaller block sizes) or fewer shared "
        "buffers",
        func->name, bytes, kMaxThreadgroupBytes));
  }
  block_threads_ = metal_block_threads(func);
  next_buffer_index_ = 0;
  std::string params;
  for (const auto& p : func->params) params += (params.empty() ? "" : ", ") + param_declaration(p);
  if (may_divide_by_zero(func->body)) {
    params += fmt::format("{}device atomic_int* {} [[buffer({})]]", params.empty() ? "" : ", ",
                          codegen::kDeviceStatusParam, next_buffer_index_++);
  }
  params += fmt::format(
      "{}uint3 {} [[threadgroup_position_in_grid]], uint3 {} [[thread_position_in_threadgroup]], "
      "uint {} [[thread_index_in_threadgroup]]",
      params.empty() ? "" : ", ", kGroupIdParam, kThreadIdParam, kThreadIndexParam);
  line() << fmt::format("[[max_total_threads_per_threadgroup({})]]\n", block_threads_);
  line() << "kernel void " << function_name(func) << "(" << params << ") ";
}

std::string CodeGenMetal::zero_checked_division(const std::string& fn, const std::string& a,
                                                const std::string& b) {
  return fmt::format("{}_checked({}, {}, &tilec_div0)", fn, a, b);
}

void CodeGenMetal::print_division_by_zero_exit(const PrimFunc& func) {
  line() << fmt::format(
      "if (tilec_div0) atomic_fetch_max_explicit({}, TILEC_STATUS_DIVISION_BY_ZERO, "
      "memory_order_relaxed);\n",
      codegen::kDeviceStatusParam);
}

void CodeGenMetal::print_allocate(const AllocateNode* op) {
  const Buffer& b = op->buffer;
  if (b->scope == StorageScope::kVar) return CodeGenC::print_allocate(op);
  std::optional<int64_t> count = allocation_elements(b);
  if (!count) {
    throw IRError(fmt::format(
        "metal codegen: '{}' ({}) has a symbolic size; Metal kernels allocate tiles of constant "
        "size only",
        b->name, to_string(b->scope)));
  }
  std::string space = address_space(b->scope);
  std::string name = declare_buffer(b);
  // Threadgroup tiles start 16-byte aligned (the 16-bit atomics address them as words).
  line() << fmt::format("{}{}{} {}[{}];\n", b->scope == StorageScope::kShared ? "alignas(16) " : "",
                        space.empty() ? "" : space + " ", storage_type_name(b->dtype), name,
                        *count);
  print_stmt(op->body);
}

void CodeGenMetal::print_barrier(const CallNode* op) {
  bool global = op->name == to_string(StorageScope::kGlobal);
  line() << (global ? "threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);\n"
                    : "threadgroup_barrier(mem_flags::mem_threadgroup);\n");
}

codegen::CodeGenC::Printed CodeGenMetal::print_call(const CallNode* op) {
  DataType t = op->dtype;
  if (op->call_kind != CallKind::kAtomic || !t.is_float() || t.bits != 16)
    return CodeGenC::print_call(op);
  // A 16-bit float element: its array as 32-bit words and its index (the section "atomic16").
  auto* element = op->args[0].as<LoadNode>();
  const Buffer& buffer = element->buffer;
  bool global = buffer->scope == StorageScope::kGlobal;
  if (!global && buffer->scope != StorageScope::kShared) {
    throw IRError(fmt::format(
        "metal codegen: T.{} on a {} element of '{}' ({}): Metal atomics here update device or "
        "threadgroup memory; use such a buffer",
        op->name, t.str(), buffer->name, to_string(buffer->scope)));
  }
  const char* s = t.is_bfloat16() ? "bf16" : "f16";
  require_helper(s);
  require_helper("atomic16");
  require_helper(std::string("atomic16_") + s);
  return {fmt::format("tilec_{}_{}_{}(({} atomic_uint*){}, (uint)({}), {})", op->name, s,
                      global ? "device" : "threadgroup", global ? "device" : "TILEC_THREADGROUP",
                      buffer_name(buffer), flat_index(buffer, element->indices),
                      print(op->args[1]).text),
          kPrimary};
}

codegen::CodeGenC::Printed CodeGenMetal::print_extern_call(const CallNode* op) {
  const std::string& n = op->name;
  if (n == kSimdgroupGemm) {
    // (acc, a, lda, b, ldb, k_steps, MT, NT, TA, TB): loads stand for their addresses.
    require_helper("simdgroup_gemm");
    auto address = [&](const Expr& e) {
      auto* element = e.as<LoadNode>();
      if (!element) throw IRError("metal codegen: tilec_simdgroup_gemm takes element loads");
      return fmt::format("&{}[{}]", buffer_name(element->buffer),
                         flat_index(element->buffer, element->indices));
    };
    auto constant = [&](size_t i) {
      const int64_t* v = as_const_int(op->args.at(i));
      if (!v) throw IRError("metal codegen: tilec_simdgroup_gemm's shape arguments are constants");
      return *v;
    };
    DataType t = op->args.at(1).dtype();
    return {fmt::format("tilec_simdgroup_gemm<{}, {}, {}, {}, {}>({}, {}, {}, {}, {}, {})",
                        storage_type_name(t), constant(6), constant(7),
                        constant(8) ? "true" : "false", constant(9) ? "true" : "false",
                        address(op->args[0]), address(op->args[1]), print(op->args[2]).text,
                        address(op->args[3]), print(op->args[4]).text, print(op->args[5]).text),
            kPrimary};
  }
  if (!gpu::is_subgroup_call(n)) return CodeGenC::print_extern_call(op);
  // Simdgroups are 32 lanes on Apple GPUs, formed from the flat thread index.
  if (n == gpu::kSubgroupId) return {fmt::format("(int)({} >> 5)", kThreadIndexParam), kUnaryPrec};
  if (n == gpu::kSubgroupLocalId)
    return {fmt::format("(int)({} & 31)", kThreadIndexParam), kUnaryPrec};
  if (n == gpu::kSubgroupSize) return {"32", kPrimary};
  if (n == gpu::kNumSubgroups) return {std::to_string((block_threads_ + 31) / 32), kPrimary};
  std::string combination = n.substr(std::string(gpu::kSubgroupReducePrefix).size());
  std::string value = print(op->args.at(0)).text;
  if (combination == "sum") return {fmt::format("simd_sum({})", value), kPrimary};
  require_helper("subgroups");
  return {fmt::format("tilec_simd_{}({})", combination, value), kPrimary};
}

backend::DeviceCodegen make_metal_device_codegen() {
  return codegen::make_device_codegen(
      "metal", [](const target::Target&) { return std::make_unique<CodeGenMetal>(); });
}

}  // namespace tilec::metal
