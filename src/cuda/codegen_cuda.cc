#include "tilec/cuda/codegen_cuda.h"

#include "tilec/codegen/bounds_record.h"
#include "tilec/codegen/c_preamble.h"
#include "tilec/codegen/device_source.h"
#include "tilec/codegen/text_sections.h"
#include "tilec/cuda/cp_async.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cuda/mma_gemm.h"
#include "tilec/gpu/subgroup.h"
#include "tilec/ir/bounds_call.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

#include <set>

namespace tilec::cuda {

using namespace ir;

// src/cuda/text/tilec_cuda_helpers.cuh, embedded at build time (CMakeLists.txt).
std::string_view cuda_helpers_text();

namespace {

// One section of the CUDA helper file, with runtime/abi.h's status codes.
const std::string& helper_text(const std::string& section) {
  static const codegen::TextSections sections(
      "src/cuda/text/tilec_cuda_helpers.cuh", cuda_helpers_text(),
      {{"TILEC_STATUS_DIVISION_BY_ZERO", codegen::kStatusDivisionByZero}});
  return sections.get(section);
}

int64_t round_up(int64_t v, int64_t to) {
  return (v + to - 1) / to * to;
}

// Bytes of one allocation, or nullopt for a symbolic size.
std::optional<int64_t> allocation_bytes(const Buffer& b) {
  Expr numel = make_int(1, DataType::Int64());
  for (const auto& d : b->shape) numel = numel * cast(DataType::Int64(), d);
  numel = transform::simplify(numel);
  const int64_t* count = as_const_int(numel);
  if (!count) return std::nullopt;
  return std::max<int64_t>(*count, 1) * (b->dtype.is_bool() ? 1 : b->dtype.bytes());
}

}  // namespace

bool CodeGenCUDA::is_reserved_word(const std::string& name) const {
  // A kernel's `half = n >> 1` must not become a declaration of type half.
  static const std::set<std::string> words = {
      "half",  "uint",      "char2",    "char4",    "int2",    "int4",    "uint2",
      "uint4", "float2",    "float3",   "float4",   "double2", "double4", "half2",
      "dim3",  "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};
  return words.count(name) != 0 || CodeGenC::is_reserved_word(name);
}

void CodeGenCUDA::print_preamble(std::ostream& os) {
  os << source_banner() << helper_text("types") << preamble_includes();
  if (uses_helper("floordiv")) os << helper_text("floordiv");
  if (uses_helper("f16")) os << float16_helpers();
  if (uses_helper("bf16")) os << bfloat16_helpers();
  if (uses_helper("f8e4m3") || uses_helper("f8e5m2")) os << float8_helpers();
  if (uses_helper("atomic")) os << helper_text("atomic");
  if (uses_helper("atomic16")) os << helper_text("atomic16");
  if (uses_helper("atomic16_f16")) os << helper_text("atomic16_f16");
  if (uses_helper("atomic16_bf16")) os << helper_text("atomic16_bf16");
  if (uses_helper("mma")) os << helper_text("mma");
  if (uses_helper("subgroups")) os << subgroup_helpers();
  if (uses_helper("cp_async")) os << helper_text("cp_async");
  if (uses_helper("bounds")) os << helper_text("bounds");
}

codegen::CodeGenC::Printed CodeGenCUDA::print_extern_call(const CallNode* op) {
  bool warp_collective =
      op->name.rfind(kLdmatrixPrefix, 0) == 0 || op->name.rfind(kMmaPrefix, 0) == 0;
  if (gpu::is_subgroup_call(op->name)) {
    // Defined in the preamble (the section "subgroups").
    require_helper("subgroups");
    std::string args;
    for (const auto& a : op->args) args += (args.empty() ? "" : ", ") + print(a).text;
    return {fmt::format("{}({})", op->name, args), kPrimary};
  }
  bool async_copy = op->name.rfind(kCpAsyncPrefix, 0) == 0;
  if (!warp_collective && !async_copy) return CodeGenC::print_extern_call(op);
  // Defined in the preamble; a load argument passes the element's address.
  require_helper(async_copy ? "cp_async" : "mma");
  std::string args;
  for (const auto& a : op->args) {
    std::string text;
    if (auto* element = a.as<LoadNode>()) {
      text = fmt::format("&{}[{}]", buffer_name(element->buffer),
                         flat_index(element->buffer, element->indices));
    } else {
      text = print(a).text;
    }
    args += (args.empty() ? "" : ", ") + text;
  }
  return {fmt::format("{}({})", op->name, args), kPrimary};
}

std::string CodeGenCUDA::atomic_function(const CallNode* op, const Buffer& buffer) {
  DataType t = op->dtype;
  if (t.is_float() && t.bits == 16) {
    const char* s = t.is_bfloat16() ? "bf16" : "f16";
    require_helper(s);
    require_helper("atomic16");
    require_helper(std::string("atomic16_") + s);
    return fmt::format("tilec_{}_{}", op->name, s);
  }
  bool supported =
      (t.is_float() && (t.bits == 32 || t.bits == 64)) || (t.is_integer() && t.bits == 32);
  if (!supported)
    throw IRError(fmt::format(
        "cuda codegen: T.{} on a {} element of '{}': CUDA atomics here take 32-bit integers, "
        "float16, bfloat16, float32 and float64; use a buffer of one of those dtypes",
        op->name, t.str(), buffer->name));
  require_helper("atomic");
  return fmt::format("tilec_{}_{}{}", op->name,
                     t.is_float()  ? "f"
                     : t.is_uint() ? "u"
                                   : "i",
                     int(t.bits));
}

std::string CodeGenCUDA::source_banner() {
  return helper_text("banner");
}

std::string CodeGenCUDA::float16_conversions() {
  return helper_text("f16");
}

std::string CodeGenCUDA::float16_helpers() {
  return "\n#include <cuda_fp16.h>" + float16_conversions();
}

std::string CodeGenCUDA::subgroup_helpers() {
  return helper_text("subgroups");
}

std::string CodeGenCUDA::bfloat16_helpers() {
  return helper_text("bf16");
}

std::string CodeGenCUDA::float8_helpers() {
  return helper_text("f8");
}

std::string CodeGenCUDA::address_space(StorageScope scope) {
  return scope == StorageScope::kShared ? "__shared__" : "";
}

std::string CodeGenCUDA::thread_index(const std::string& tag) {
  static const std::set<std::string> tags = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                             "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  if (!tags.count(tag)) {
    throw IRError("cuda codegen: unknown thread tag '" + tag +
                  "'; known: blockIdx.x/y/z, threadIdx.x/y/z");
  }
  return "(int)" + tag;
}

std::vector<std::string> CodeGenCUDA::loop_pragmas(ForKind kind) {
  if (kind == ForKind::kUnrolled || kind == ForKind::kVectorized) return {"#pragma unroll 8"};
  return {};
}

int64_t CodeGenCUDA::block_threads(const PrimFunc& func) {
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

int64_t CodeGenCUDA::shared_bytes(const PrimFunc& func) const {
  int64_t total = 0;
  post_order_visit(func->body, [&](const Stmt* s, const Expr*) {
    if (!s || s->kind() != StmtKind::kAllocate) return;
    const Buffer& b = s->as<AllocateNode>()->buffer;
    if (b->scope != StorageScope::kShared) return;
    if (auto bytes = allocation_bytes(b)) total += round_up(*bytes, shared_alignment());
  });
  return total;
}

void CodeGenCUDA::print_function_signature(const PrimFunc& func) {
  std::string params;
  for (const auto& p : func->params) params += (params.empty() ? "" : ", ") + param_declaration(p);
  int64_t shared = shared_bytes(func);
  if (auto limit = max_shared_bytes_per_block(arch_); limit && shared > *limit) {
    throw IRError(fmt::format(
        "cuda: kernel '{}' uses {} bytes of shared memory per block, but {} allows at most {} "
        "({} KB, with the dynamic shared memory attribute raised at launch); use smaller shared "
        "tiles (smaller block sizes) or fewer T.Pipelined stages",
        func->name, shared, arch_, *limit, *limit / 1024));
  }
  dynamic_shared_ = shared > static_shared_limit();
  shared_offset_ = 0;
  std::string name = function_name(func);
  if (dynamic_shared_) {
    line() << fmt::format(
        "/* {} bytes of shared tiles, above the 48 KB of static shared memory: one dynamic "
        "array, sized at launch from this variable. */\n",
        shared);
    line() << fmt::format("extern \"C\" __device__ int64_t {}{} = {};\n",
                          exec::kDynamicSharedBytesPrefix, name, shared);
  }
  if (may_divide_by_zero(func->body)) {
    line() << "/* Set to TILEC_STATUS_DIVISION_BY_ZERO when a divisor is zero; the launch "
              "zeroes and reads it. */\n";
    line() << fmt::format("extern \"C\" __device__ int {}{} = 0;\n", kDeviceStatusPrefix, name);
  }
  line() << fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}({}) ",
                        block_threads(func), name, params.empty() ? "void" : params);
}

std::string CodeGenCUDA::zero_checked_division(const std::string& fn, const std::string& a,
                                               const std::string& b) {
  return fmt::format("{}_checked({}, {}, &tilec_div0)", fn, a, b);
}

void CodeGenCUDA::print_division_by_zero_exit(const PrimFunc& func) {
  line() << fmt::format("if (tilec_div0) atomicMax(&{}{}, TILEC_STATUS_DIVISION_BY_ZERO);\n",
                        kDeviceStatusPrefix, function_name(func));
}

void CodeGenCUDA::print_allocate(const AllocateNode* op) {
  const Buffer& b = op->buffer;
  if (b->scope == StorageScope::kVar) return CodeGenC::print_allocate(op);
  std::optional<int64_t> bytes = allocation_bytes(b);
  if (!bytes) {
    throw IRError(fmt::format(
        "cuda codegen: '{}' ({}) has a symbolic size; CUDA kernels allocate tiles of constant "
        "size only",
        b->name, to_string(b->scope)));
  }
  int64_t elem = b->dtype.is_bool() ? 1 : b->dtype.bytes();
  std::string storage = storage_type_name(b->dtype);
  std::string name = declare_buffer(b);
  if (b->scope == StorageScope::kShared && dynamic_shared_) {
    if (shared_offset_ == 0) {
      line() << fmt::format(
          "extern __shared__ __align__({}) unsigned char tilec_dynamic_shared[];\n",
          shared_alignment());
    }
    line() << fmt::format("{0}* __restrict__ {1} = ({0}*)(tilec_dynamic_shared + {2});\n", storage,
                          name, shared_offset_);
    shared_offset_ += round_up(*bytes, shared_alignment());
  } else {
    std::string space = address_space(b->scope);
    int64_t align = b->scope == StorageScope::kShared ? shared_alignment() : 16;
    line() << fmt::format("{}__align__({}) {} {}[{}];\n", space.empty() ? "" : space + " ", align,
                          storage, name, *bytes / elem);
  }
  print_stmt(op->body);
}

void CodeGenCUDA::print_barrier(const CallNode* op) {
  line() << "__syncthreads();\n";
}

void CodeGenCUDA::print_evaluate(const EvaluateNode* op) {
  auto bounds = as_bounds_call(op->value);
  if (!bounds) return CodeGenC::print_evaluate(op);
  if (bounds->stop) return;
  require_helper("bounds");
  std::string format;
  for (char c : codegen::bounds_violation_format(*bounds)) {
    if (c == '"' || c == '\\') format += '\\';
    format += c;
  }
  std::string values;
  for (const auto* list : {&bounds->indices, &bounds->shape})
    for (const auto& e : *list) values += ", (long long)(" + print_expr(e) + ")";
  line() << "tilec_bounds_violation(\"" << format << "\"" << values << ");\n";
}

void CodeGenCUDA::print_vector_move(const StoreNode* op, const LoadNode* src) {
  int64_t element = src->buffer->dtype.is_bool() ? 1 : src->buffer->dtype.bytes();
  const char* type = nullptr;
  switch (element * src->dtype.lanes) {
    case 2:
      type = "unsigned short";
      break;
    case 4:
      type = "unsigned int";
      break;
    case 8:
      type = "uint2";
      break;
    case 16:
      type = "uint4";
      break;
    default:
      return CodeGenC::print_vector_move(op, src);
  }
  // The indices in parentheses: one may be an XOR (a swizzled shared tile, shared_swizzle.h),
  // which binds more loosely than the pointer's +.
  line() << fmt::format("*({0}*)({1} + ({2})) = *(const {0}*)({3} + ({4}));\n", type,
                        buffer_name(op->buffer), flat_index(op->buffer, op->indices),
                        buffer_name(src->buffer), flat_index(src->buffer, src->indices));
}

backend::DeviceCodegen make_cuda_device_codegen() {
  return codegen::make_device_codegen("cuda", [](const target::Target& target) {
    return std::make_unique<CodeGenCUDA>(target.get_string("arch"));
  });
}

}  // namespace tilec::cuda
