#include "tilec/opencl/codegen_opencl.h"

#include "tilec/codegen/device_source.h"
#include "tilec/codegen/narrow_float.h"
#include "tilec/gpu/subgroup.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

#include <set>

namespace tilec::opencl {

using namespace ir;
using codegen::Float8Dialect;

namespace {

const char* kTypes = R"CL(#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
/* The interpreter rounds every operation: no contraction into fused multiply-adds. */
#pragma OPENCL FP_CONTRACT OFF
typedef char int8_t;
typedef uchar uint8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;
#define INT64_C(x) ((long)(x##L))
#define UINT64_C(x) ((ulong)(x##UL))
#ifndef INT64_MIN
#define INT64_MIN ((long)(-0x7fffffffffffffffL - 1))
#endif
#ifndef INT32_MIN
#define INT32_MIN ((int)(-0x7fffffff - 1))
#endif
)CL";

// Floor division/modulo (Python's // and %). A zero divisor yields 0 and, where the
// kernel divides by a non-constant, sets the kernel's private flag: the C codegen's
// flag reset declares it here, the *_checked helpers set it, and the kernel's end
// reports it through its status word (see the header).
const char* kFloorDiv = R"CL(
#define TILEC_STATUS_DIVISION_BY_ZERO 4
#define tilec_division_by_zero int tilec_div0
static inline int tilec_floordiv_i32(int a, int b) {
  if (b == 0) return 0;
  int q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int tilec_floormod_i32(int a, int b) {
  if (b == 0) return 0;
  int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline long tilec_floordiv_i64(long a, long b) {
  if (b == 0) return 0;
  long q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline long tilec_floormod_i64(long a, long b) {
  if (b == 0) return 0;
  long r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline uint tilec_div_u32(uint a, uint b) { return b == 0 ? 0 : a / b; }
static inline uint tilec_mod_u32(uint a, uint b) { return b == 0 ? 0 : a % b; }
static inline ulong tilec_div_u64(ulong a, ulong b) { return b == 0 ? 0 : a / b; }
static inline ulong tilec_mod_u64(ulong a, ulong b) { return b == 0 ? 0 : a % b; }
static inline float tilec_floordiv_f32(float a, float b) { return floor(a / b); }
static inline float tilec_floormod_f32(float a, float b) { return a - floor(a / b) * b; }
#ifdef cl_khr_fp64
static inline double tilec_floordiv_f64(double a, double b) { return floor(a / b); }
static inline double tilec_floormod_f64(double a, double b) { return a - floor(a / b) * b; }
#endif
#define TILEC_CL_CHECKED(FN, T) \
  static inline T FN##_checked(T a, T b, int* flag) { if (b == 0) *flag = 1; return FN(a, b); }
TILEC_CL_CHECKED(tilec_floordiv_i32, int)
TILEC_CL_CHECKED(tilec_floormod_i32, int)
TILEC_CL_CHECKED(tilec_floordiv_i64, long)
TILEC_CL_CHECKED(tilec_floormod_i64, long)
TILEC_CL_CHECKED(tilec_div_u32, uint)
TILEC_CL_CHECKED(tilec_mod_u32, uint)
TILEC_CL_CHECKED(tilec_div_u64, ulong)
TILEC_CL_CHECKED(tilec_mod_u64, ulong)
)CL";

// float16 is stored as ushort and computed in float, rounded after every operation.
// The conversions go through the device's `half` type where it has cl_khr_fp16 (the
// OpenCL compiler defines the macro from the device's extension list), else through
// vload_half/vstore_half_rte, which every device has; both round to nearest even.
const char* kFloat16 = R"CL(
#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
static inline float tilec_f16_to_f32(ushort h) { return convert_float(as_half(h)); }
static inline ushort tilec_f32_to_f16(float f) { return as_ushort(convert_half_rte(f)); }
#else
static inline float tilec_f16_to_f32(ushort h) { return vload_half(0, (const __private half*)&h); }
static inline ushort tilec_f32_to_f16(float f) {
  ushort h;
  vstore_half_rte(f, 0, (__private half*)&h);
  return h;
}
#endif
static inline float tilec_round_f16(float f) { return tilec_f16_to_f32(tilec_f32_to_f16(f)); }
)CL";

const char* kBFloat16 = R"CL(
static inline float tilec_bf16_to_f32(ushort h) { return as_float((uint)h << 16); }
static inline ushort tilec_f32_to_bf16(float f) {
  uint u = as_uint(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (ushort)((u >> 16) | 0x40u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
static inline float tilec_round_bf16(float f) { return tilec_bf16_to_f32(tilec_f32_to_bf16(f)); }
)CL";

// Atomic updates (ir::atomic_update) by address space: OpenCL 1.2's atomic_add/max/min
// (and atomic_and/or/xor for bitwise reducers) for 32-bit integers, a compare-and-swap loop on the
// bits for float adds, max and min (combining as the IR's kAdd/kMax/kMin do); private elements are
// one work-item's own.
const char* kAtomic = R"CL(
#define TILEC_CL_CAS_F32(NAME, SPACE, NEXT)                                \
  static inline float NAME(volatile SPACE float* p, float v) {             \
    union { uint u; float f; } seen, next;                                 \
    seen.f = *p;                                                           \
    for (;;) {                                                             \
      float cur = seen.f;                                                  \
      next.f = (NEXT);                                                     \
      uint old = atomic_cmpxchg((volatile SPACE uint*)p, seen.u, next.u);  \
      if (old == seen.u) return cur;                                       \
      seen.u = old;                                                        \
    }                                                                      \
  }
#define TILEC_CL_INT(NAME, SPACE, T, FN) \
  static inline T NAME(volatile SPACE T* p, T v) { return FN(p, v); }
#define TILEC_CL_ATOMICS(SPACE, S)                                         \
  TILEC_CL_CAS_F32(tilec_atomic_add_f32_##S, SPACE, cur + v)               \
  TILEC_CL_CAS_F32(tilec_atomic_max_f32_##S, SPACE, cur < v ? v : cur)     \
  TILEC_CL_CAS_F32(tilec_atomic_min_f32_##S, SPACE, v < cur ? v : cur)     \
  TILEC_CL_INT(tilec_atomic_add_i32_##S, SPACE, int, atomic_add)           \
  TILEC_CL_INT(tilec_atomic_max_i32_##S, SPACE, int, atomic_max)           \
  TILEC_CL_INT(tilec_atomic_min_i32_##S, SPACE, int, atomic_min)           \
  TILEC_CL_INT(tilec_atomic_add_u32_##S, SPACE, uint, atomic_add)          \
  TILEC_CL_INT(tilec_atomic_max_u32_##S, SPACE, uint, atomic_max)          \
  TILEC_CL_INT(tilec_atomic_min_u32_##S, SPACE, uint, atomic_min)          \
  TILEC_CL_INT(tilec_atomic_and_i32_##S, SPACE, int, atomic_and)           \
  TILEC_CL_INT(tilec_atomic_or_i32_##S, SPACE, int, atomic_or)             \
  TILEC_CL_INT(tilec_atomic_xor_i32_##S, SPACE, int, atomic_xor)           \
  TILEC_CL_INT(tilec_atomic_and_u32_##S, SPACE, uint, atomic_and)          \
  TILEC_CL_INT(tilec_atomic_or_u32_##S, SPACE, uint, atomic_or)            \
  TILEC_CL_INT(tilec_atomic_xor_u32_##S, SPACE, uint, atomic_xor)
TILEC_CL_ATOMICS(__global, global)
TILEC_CL_ATOMICS(__local, local)
#define TILEC_CL_PRIVATE(NAME, T, NEXT) \
  static inline T NAME(T* p, T v) { T cur = *p; *p = (NEXT); return cur; }
TILEC_CL_PRIVATE(tilec_atomic_add_f32_private, float, cur + v)
TILEC_CL_PRIVATE(tilec_atomic_max_f32_private, float, cur < v ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_min_f32_private, float, v < cur ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_add_i32_private, int, cur + v)
TILEC_CL_PRIVATE(tilec_atomic_max_i32_private, int, cur < v ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_min_i32_private, int, v < cur ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_add_u32_private, uint, cur + v)
TILEC_CL_PRIVATE(tilec_atomic_max_u32_private, uint, cur < v ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_min_u32_private, uint, v < cur ? v : cur)
TILEC_CL_PRIVATE(tilec_atomic_and_i32_private, int, cur & v)
TILEC_CL_PRIVATE(tilec_atomic_or_i32_private, int, cur | v)
TILEC_CL_PRIVATE(tilec_atomic_xor_i32_private, int, cur ^ v)
TILEC_CL_PRIVATE(tilec_atomic_and_u32_private, uint, cur & v)
TILEC_CL_PRIVATE(tilec_atomic_or_u32_private, uint, cur | v)
TILEC_CL_PRIVATE(tilec_atomic_xor_u32_private, uint, cur ^ v)
)CL";

// 16-bit float elements (stored as ushort): OpenCL 1.2 has no 16-bit compare-and-swap,
// so the loop swaps the aligned 32-bit word holding the element (devices are little
// endian: the element at an address with bit 1 set is the word's high half), combining
// in float and rounding to the dtype.
const char* kAtomic16 = R"CL(
#define TILEC_CL_CAS16(NAME, SPACE, TO, FROM, NEXT)                                       \
  static inline float NAME(volatile SPACE ushort* p, float v) {                            \
    volatile SPACE uint* word = (volatile SPACE uint*)((uintptr_t)p & ~(uintptr_t)3);      \
    uint shift = ((uintptr_t)p & 2) ? 16u : 0u;                                            \
    uint seen = *word;                                                                     \
    for (;;) {                                                                             \
      float cur = TO((ushort)(seen >> shift));                                             \
      uint want = (seen & ~(0xFFFFu << shift)) | ((uint)FROM((float)(NEXT)) << shift);     \
      uint old = atomic_cmpxchg(word, seen, want);                                         \
      if (old == seen) return cur;                                                         \
      seen = old;                                                                          \
    }                                                                                      \
  }
#define TILEC_CL_PRIVATE16(NAME, TO, FROM, NEXT) \
  static inline float NAME(ushort* p, float v) { float cur = TO(*p); *p = FROM((float)(NEXT)); return cur; }
#define TILEC_CL_ATOMICS16(S, TO, FROM)                                                    \
  TILEC_CL_CAS16(tilec_atomic_add_##S##_global, __global, TO, FROM, cur + v)               \
  TILEC_CL_CAS16(tilec_atomic_max_##S##_global, __global, TO, FROM, cur < v ? v : cur)     \
  TILEC_CL_CAS16(tilec_atomic_min_##S##_global, __global, TO, FROM, v < cur ? v : cur)     \
  TILEC_CL_CAS16(tilec_atomic_add_##S##_local, __local, TO, FROM, cur + v)                 \
  TILEC_CL_CAS16(tilec_atomic_max_##S##_local, __local, TO, FROM, cur < v ? v : cur)       \
  TILEC_CL_CAS16(tilec_atomic_min_##S##_local, __local, TO, FROM, v < cur ? v : cur)       \
  TILEC_CL_PRIVATE16(tilec_atomic_add_##S##_private, TO, FROM, cur + v)                    \
  TILEC_CL_PRIVATE16(tilec_atomic_max_##S##_private, TO, FROM, cur < v ? v : cur)          \
  TILEC_CL_PRIVATE16(tilec_atomic_min_##S##_private, TO, FROM, v < cur ? v : cur)
)CL";
const char* kAtomicF16 = "TILEC_CL_ATOMICS16(f16, tilec_f16_to_f32, tilec_f32_to_f16)\n";
const char* kAtomicBF16 = "TILEC_CL_ATOMICS16(bf16, tilec_bf16_to_f32, tilec_f32_to_bf16)\n";

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
  os << kTypes;
  if (uses_helper("floordiv")) os << kFloorDiv;
  if (uses_helper("f16")) os << kFloat16;
  if (uses_helper("bf16")) os << kBFloat16;
  // float8 is stored as uchar and converted in software (OpenCL has no 8-bit floats).
  Float8Dialect cl{"static inline", "as_uint({})", "as_float({})", "rint"};
  if (uses_helper("f8e4m3")) os << codegen::float8_helper_source(DataType::Float8E4M3(), cl);
  if (uses_helper("f8e5m2")) os << codegen::float8_helper_source(DataType::Float8E5M2(), cl);
  if (uses_helper("atomic")) os << kAtomic;
  if (uses_helper("atomic16")) os << kAtomic16;
  if (uses_helper("atomic16_f16")) os << kAtomicF16;
  if (uses_helper("atomic16_bf16")) os << kAtomicBF16;
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
  return name;  // OpenCL's built-ins are overloaded on float and double
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
