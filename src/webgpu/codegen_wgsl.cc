#include "tilec/webgpu/codegen_wgsl.h"

#include "tilec/gpu/subgroup.h"
#include "tilec/ir/functor.h"
#include "tilec/ir/visitor.h"
#include "tilec/runtime/abi.h"
#include "tilec/transform/index_width.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/split_host_device.h"
#include "tilec/webgpu/kernel_info.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace tilec::webgpu {

using namespace ir;

namespace {

// WGSL's keywords and reserved words (WGSL spec 15.1, 15.2) that a kernel's names could
// spell, and the names the printer itself declares.
const std::set<std::string>& wgsl_reserved_words() {
  static const std::set<std::string> words = {
      "alias", "break", "case", "const", "const_assert", "continue", "continuing", "default",
      "diagnostic", "discard", "else", "enable", "false", "fn", "for", "if", "let", "loop",
      "override", "requires", "return", "struct", "switch", "true", "var", "while", "NULL", "Self",
      "abstract", "active", "alignas", "alignof", "as", "asm", "asm_fragment", "async", "attribute",
      "auto", "await", "become", "cast", "catch", "class", "co_await", "co_return", "co_yield",
      "coherent", "column_major", "common", "compile", "compile_fragment", "concept", "const_cast",
      "consteval", "constexpr", "constinit", "crate", "debugger", "decltype", "delete", "demote",
      "demote_to_helper", "do", "dynamic_cast", "enum", "explicit", "export", "extends", "extern",
      "external", "fallthrough", "filter", "final", "finally", "friend", "from", "fxgroup", "get",
      "goto", "groupshared", "highp", "impl", "implements", "import", "inline", "instanceof",
      "interface", "layout", "lowp", "macro", "macro_rules", "match", "mediump", "meta", "mod",
      "module", "move", "mut", "mutable", "namespace", "new", "nil", "noexcept", "noinline",
      "nointerpolation", "non_coherent", "noncoherent", "noperspective", "null", "nullptr", "of",
      "operator", "package", "packoffset", "partition", "pass", "patch", "pixelfragment", "precise",
      "precision", "premerge", "priv", "protected", "pub", "public", "readonly", "ref",
      "regardless", "register", "reinterpret_cast", "require", "resource", "restrict", "self",
      "set", "shared", "sizeof", "smooth", "snorm", "static", "static_assert", "static_cast", "std",
      "subroutine", "super", "target", "template", "this", "thread_local", "throw", "trait", "try",
      "type", "typedef", "typeid", "typename", "typeof", "union", "unless", "unorm", "unsafe",
      "unsized", "use", "using", "varying", "virtual", "volatile", "wgsl", "where", "with",
      "writeonly", "yield",
      // Predeclared types and functions the generated code uses.
      "bool", "i32", "u32", "f32", "f16", "array", "atomic", "vec2", "vec3", "vec4", "ptr",
      "select", "bitcast", "exp", "exp2", "log", "log2", "sqrt", "tanh", "pow", "floor", "ceil",
      "fma", "abs", "min", "max", "ldexp", "workgroupBarrier", "storageBarrier", "main", "sin",
      "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "atan2",
      "trunc", "round", "sign"};
  return words;
}

std::string f32_literal(double v) {
  float f = float(v);
  // Through a function: a constant expression may not be NaN or infinite in WGSL.
  if (std::isnan(f)) return "tilec_f32_bits(0x7fc00000u)";
  if (std::isinf(f)) return f < 0 ? "tilec_f32_bits(0xff800000u)" : "tilec_f32_bits(0x7f800000u)";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, f);
  std::string text(buf, res.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  text += "f";
  return f < 0 || (f == 0 && std::signbit(f)) ? "(" + text + ")" : text;
}

bool is_packed_global(const Buffer& b) {
  DataType t = b->dtype;
  return b->scope == StorageScope::kGlobal &&
         (t.is_bool() || (t.is_integer() && t.bits < 32) || t.is_float8());
}

// WGSL's preamble sections, emitted when used.
// NaN and infinities, which WGSL has no constant expressions for.
const char* kFloatBits = "fn tilec_f32_bits(b: u32) -> f32 { return bitcast<f32>(b); }\n";

// WGSL's built-in math functions that mean what the tile IR's do (docs/semantics.md).
const std::set<std::string>& wgsl_builtin_math() {
  static const std::set<std::string> names = {"abs",  "exp",   "exp2",  "log",   "log2",  "sqrt",
                                              "tanh", "pow",   "floor", "ceil",  "fma",   "max",
                                              "min",  "sin",   "cos",   "tan",   "atan",  "sinh",
                                              "cosh", "asinh", "acosh", "atanh", "atan2", "trunc"};
  return names;
}

// C's round, log1p, expm1, hypot, fmod and copysign, which WGSL lacks, and asin and acos,
// as functions (tilec_NAME), emitted when used. log1p and expm1 are Kahan's forms, accurate
// near 0; fmod subtracts the largest y * 2^k that fits, each step exact (Sterbenz), so the
// remainder is exact as C's. WGSL's asin and acos may be as far as 2^-11 off (lavapipe's
// are 4e-4 off, past the float32 tolerance): atan2 of the same triangle is within a few ulp.
const std::set<std::string>& wgsl_math_helpers() {
  static const std::set<std::string> names = {"round", "log1p",    "expm1", "hypot",
                                              "fmod",  "copysign", "asin",  "acos"};
  return names;
}
const char* kMathHelperFunctions = R"(fn tilec_asin(x: f32) -> f32 {
  return atan2(x, sqrt((1.0f - x) * (1.0f + x)));
}
fn tilec_acos(x: f32) -> f32 {
  return atan2(sqrt((1.0f - x) * (1.0f + x)), x);
}
fn tilec_round(x: f32) -> f32 {
  let t = trunc(x);
  return select(round(x), t + sign(x), abs(x - t) == 0.5f);
}
fn tilec_log1p(x: f32) -> f32 {
  let u = 1.0f + x;
  if (u == 1.0f || u > 3.4028235e38f) { return select(log(u), x, u == 1.0f); }
  return log(u) * x / (u - 1.0f);
}
fn tilec_expm1(x: f32) -> f32 {
  let u = exp(x);
  if (u == 1.0f || u > 3.4028235e38f) { return select(u, x, u == 1.0f); }
  let um1 = u - 1.0f;
  if (um1 == -1.0f) { return -1.0f; }
  return um1 * x / log(u);
}
fn tilec_hypot(x: f32, y: f32) -> f32 {
  let a = max(abs(x), abs(y));
  let b = min(abs(x), abs(y));
  if (a == 0.0f || a > 3.4028235e38f) { return a; }
  let r = b / a;
  return a * sqrt(1.0f + r * r);
}
fn tilec_fmod(x: f32, y: f32) -> f32 {
  let ay = abs(y);
  var r = abs(x);
  if (!(ay > 0.0f)) { return tilec_f32_bits(0x7fc00000u); }
  while (r >= ay) {
    var d = ay;
    while (d * 2.0f <= r) { d = d * 2.0f; }
    r = r - d;
  }
  return select(r, -r, x < 0.0f);
}
fn tilec_copysign(x: f32, y: f32) -> f32 {
  return bitcast<f32>((bitcast<u32>(x) & 0x7fffffffu) | (bitcast<u32>(y) & 0x80000000u));
}
)";

const char* kFloorDivHelpers =
    R"(// Floor division and modulo (Python's // and %), as docs/semantics.md defines them; a
// zero divisor yields 0 and sets the invocation's flag, which the kernel reports.
var<private> tilec_div0: bool;
fn tilec_floordiv_i32(a: i32, b: i32) -> i32 {
  if (b == 0) { tilec_div0 = true; return 0; }
  let q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) { return q - 1; }
  return q;
}
fn tilec_floormod_i32(a: i32, b: i32) -> i32 {
  if (b == 0) { tilec_div0 = true; return 0; }
  let r = a % b;
  if ((r != 0) && ((r < 0) != (b < 0))) { return r + b; }
  return r;
}
fn tilec_div_u32(a: u32, b: u32) -> u32 {
  if (b == 0u) { tilec_div0 = true; return 0u; }
  return a / b;
}
fn tilec_mod_u32(a: u32, b: u32) -> u32 {
  if (b == 0u) { tilec_div0 = true; return 0u; }
  return a % b;
}
fn tilec_floordiv_f32(a: f32, b: f32) -> f32 { return floor(a / b); }
fn tilec_floormod_f32(a: f32, b: f32) -> f32 { return a - floor(a / b) * b; }
)";

const char* kFloat8Helpers = R"(// float8 bits (one byte in the low bits) to their exact f32 value.
fn tilec_f8e4m3_to_f32(b: u32) -> f32 {
  let s = select(1.0f, -1.0f, (b & 0x80u) != 0u);
  let e = (b >> 3u) & 0xFu;
  let m = b & 7u;
  if (e == 15u && m == 7u) { return tilec_f32_bits(0x7fc00000u); }
  if (e == 0u) { return s * ldexp(f32(m), -9); }
  return s * ldexp(f32(m + 8u), i32(e) - 10);
}
fn tilec_f8e5m2_to_f32(b: u32) -> f32 {
  let s = select(1.0f, -1.0f, (b & 0x80u) != 0u);
  let e = (b >> 2u) & 0x1Fu;
  let m = b & 3u;
  if (e == 31u) {
    if (m == 0u) { return s * tilec_f32_bits(0x7f800000u); }
    return tilec_f32_bits(0x7fc00000u);
  }
  if (e == 0u) { return s * ldexp(f32(m), -16); }
  return s * ldexp(f32(m + 4u), i32(e) - 17);
}
)";

struct Printed {
  std::string text;
  bool primary = true;  // needs no parentheses as an operand
};

std::string paren(const Printed& p) {
  return p.primary ? p.text : "(" + p.text + ")";
}

class WgslPrinter : public ExprFunctor<Printed()>, public StmtFunctor<void()> {
 public:
  explicit WgslPrinter(const WgslOptions& options) : options_(options) {}

  std::string add_function(const PrimFunc& func) {
    func_ = func;
    names_.clear();
    buffer_names_.clear();
    used_names_ = module_names_;
    bounds_.clear();
    atomic_buffers_.clear();
    body_.str("");
    indent_ = 1;
    for (const auto& v : symbolic_shape_vars(func)) bounds_[v.get()] = {0, std::nullopt};
    find_atomic_buffers(func->body);
    written_.clear();
    post_order_visit(func->body, [&](const Stmt* st, const Expr* e) {
      if (st)
        if (auto* store = st->as<StoreNode>();
            store && store->buffer->scope == StorageScope::kGlobal)
          written_.insert(store->buffer->name);
      if (e)
        if (auto* c = e->as<CallNode>(); c && c->call_kind == CallKind::kAtomic)
          if (auto* el = c->args[0].as<LoadNode>();
              el && el->buffer->scope == StorageScope::kGlobal)
            written_.insert(el->buffer->name);
    });

    std::string entry = unique_name(func->name, true);
    KernelInfo info;
    info.entry = entry;
    info.workgroup = workgroup_size(func);
    int64_t invocations = info.workgroup[0] * info.workgroup[1] * info.workgroup[2];
    invocations_ = invocations;
    uses_subgroups_ = false;
    if (invocations > options_.max_invocations) {
      fail(fmt::format(
          "uses {} threads per workgroup ({}x{}x{}), but the target allows at most {} "
          "(max_threads_per_block; the WebGPU default is 256); lower threads= in T.Kernel",
          invocations, info.workgroup[0], info.workgroup[1], info.workgroup[2],
          options_.max_invocations));
    }

    for (const auto& p : func->params) {
      if (p.is_buffer() && transform::needs_wide_index(p.buffer)) {
        fail(fmt::format(
            "indexes tensor '{}' in 64-bit arithmetic (its shape is symbolic or over 2^31 "
            "elements, so tilec cannot prove 32-bit offsets suffice); WGSL has no 64-bit "
            "integers (browsers provide none): give the tensor a constant shape under 2^31 "
            "elements",
            p.buffer->name));
      }
    }
    std::ostringstream decls;  // module-scope declarations of this kernel
    int binding = 0;
    std::vector<std::pair<std::string, std::string>> scalars;  // field, WGSL type
    for (const auto& p : func->params) {
      if (!p.is_buffer()) continue;
      const Buffer& b = p.buffer;
      std::string name = unique_name(b->name, true);
      buffer_names_[b.get()] = name;
      global_names_[b->name] = name;
      bool writes = written_.count(b->name) > 0;
      decls << fmt::format("@group(0) @binding({}) var<storage, {}> {}: array<{}>;\n", binding++,
                           writes ? "read_write" : "read", name, element_type(b));
      info.buffers.push_back(writes ? 'w' : 'r');
    }
    for (const auto& p : func->params) {
      if (p.is_buffer()) continue;
      DataType t = p.var.dtype();
      if (t.is_bool()) {
        fail(
            fmt::format("has a bool scalar parameter '{}', which a uniform buffer cannot hold; "
                        "pass an int32",
                        p.name()));
      }
      scalars.push_back({p.name(), value_type(t, "scalar parameter '" + p.name() + "'")});
    }
    std::string params_struct = entry + "_params";
    std::string params_var = entry + "_args";
    if (!scalars.empty()) {
      decls << "struct " << params_struct << " {\n";
      for (size_t i = 0; i < scalars.size(); ++i)
        decls << fmt::format("  p{}: {},\n", i, scalars[i].second);
      decls << "}\n";
      decls << fmt::format("@group(0) @binding({}) var<uniform> {}: {};\n", binding++, params_var,
                           params_struct);
      used_names_.insert(params_var);
    }
    info.scalars = int(scalars.size());
    std::string status_var = entry + "_status";
    bool divides = may_divide_by_zero(func->body);
    if (divides) {
      decls << fmt::format(
          "@group(0) @binding({}) var<storage, read_write> {}: array<atomic<i32>>;\n", binding++,
          status_var);
      used_names_.insert(status_var);
      require("floordiv");
    }
    info.status = divides;

    // The body: scalar parameters first, from the uniform struct.
    size_t scalar_index = 0;
    for (const auto& p : func->params) {
      if (p.is_buffer()) continue;
      std::string name = declare(p.var);
      std::string field = fmt::format("{}.p{}", params_var, scalar_index++);
      line() << "let " << name << ": " << value_type(p.var.dtype(), "") << " = "
             << round(Printed{field, true}, p.var.dtype()).text << ";\n";
    }
    print_stmt(func->body);
    if (divides) {
      line() << fmt::format("if (tilec_div0) {{ atomicMax(&{}[0], {}); }}\n", status_var,
                            TILEC_STATUS_DIVISION_BY_ZERO);
    }

    info.workgroup_bytes = workgroup_bytes_;
    if (workgroup_bytes_ > options_.max_workgroup_storage) {
      fail(fmt::format(
          "declares {} bytes of workgroup (shared) memory, but the target allows {} "
          "(max_shared_memory_per_block; the device's maxComputeWorkgroupStorageSize); use "
          "smaller shared tiles, fewer T.Pipelined stages, or raise -max_shared_memory_per_block "
          "up to the device's limit",
          workgroup_bytes_, options_.max_workgroup_storage));
    }
    workgroup_bytes_ = 0;
    std::ostringstream out;
    out << "\n" << format_kernel_info(info) << "\n";
    out << decls.str() << workgroup_decls_.str();
    workgroup_decls_.str("");
    out << fmt::format("@compute @workgroup_size({}, {}, {})\n", info.workgroup[0],
                       info.workgroup[1], info.workgroup[2]);
    out << "fn " << entry
        << "(@builtin(workgroup_id) tilec_wid: vec3<u32>, @builtin(local_invocation_id) "
           "tilec_lid: vec3<u32>"
        << (uses_subgroups_ ? ", @builtin(local_invocation_index) tilec_lidx: u32, "
                              "@builtin(subgroup_invocation_id) tilec_sg_lane: u32, "
                              "@builtin(subgroup_size) tilec_sg_size: u32"
                            : "")
        << ") {\n"
        << body_.str() << "}\n";
    functions_ += out.str();
    module_names_ = used_names_;
    return entry;
  }

  std::string finish() const {
    std::string out;
    if (helpers_.count("f16")) out += "enable f16;\n";
    if (helpers_.count("subgroups")) {
      // wgpu-native's naga (v29) refuses `enable subgroups;` and takes the builtins with the
      // device's feature alone; browsers' Tint requires the directive, which
      // kSubgroupsEnableMarker marks the place of (tests/webgpu adds it for Tint).
      out += std::string(kSubgroupsEnableMarker) + "\n";
      // Every invocation of a block reaches the reduce (the lowering's contract), which
      // Tint's uniformity analysis cannot see through the per-thread loop bounds.
      out += "diagnostic(off, subgroup_uniformity);\n";
    }
    if (functions_.find("tilec_f32_bits(") != std::string::npos || helpers_.count("float8") ||
        helpers_.count("math"))
      out += kFloatBits;
    if (helpers_.count("math")) out += kMathHelperFunctions;
    if (helpers_.count("floordiv")) out += kFloorDivHelpers;
    if (helpers_.count("float8")) out += kFloat8Helpers;
    return out + functions_;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw IRError(fmt::format("webgpu codegen: kernel '{}' {}", func_ ? func_->name : "?", what));
  }

  void require(const std::string& helper) { helpers_.insert(helper); }

  // ---------------------------------------------------------------- names

  std::string unique_name(const std::string& raw, bool module_scope = false) {
    std::string base;
    for (char c : raw) base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0])) || base[0] == '_')
      base = "v" + base;
    if (wgsl_reserved_words().count(base) || base.rfind("tilec_", 0) == 0) base += "_";
    std::string name = base;
    for (int i = 1; used_names_.count(name) || module_names_.count(name); ++i)
      name = base + "_" + std::to_string(i);
    used_names_.insert(name);
    if (module_scope) module_names_.insert(name);
    return name;
  }

  std::string declare(const Var& v) {
    std::string name = unique_name(v.name());
    names_[v.get()] = name;
    return name;
  }

  std::string var_name(const Var& v) {
    auto it = names_.find(v.get());
    if (it != names_.end()) return it->second;
    fail(fmt::format("uses variable '{}', which is never defined; the lowering left it free",
                     v.name()));
  }

  std::string buffer_name(const Buffer& b) {
    auto it = buffer_names_.find(b.get());
    if (it != buffer_names_.end()) return it->second;
    if (b->scope == StorageScope::kGlobal) {
      auto g = global_names_.find(b->name);
      if (g != global_names_.end()) return g->second;
    }
    fail(fmt::format("uses buffer '{}' ({}), which is neither a parameter nor allocated in scope",
                     b->name, to_string(b->scope)));
  }

  // ---------------------------------------------------------------- types

  // The WGSL type holding a value of t.
  std::string value_type(DataType t, const std::string& what) {
    if (t.lanes != 1)
      fail(fmt::format("has a {}-lane vector value outside a vector move", t.lanes));
    if (t.is_bfloat16()) {
      fail(fmt::format(
          "uses bfloat16{}; WGSL has no bfloat16 type and tilec's webgpu backend does not emulate "
          "it; use float16 (with the device's shader-f16) or float32",
          what.empty() ? "" : " (" + what + ")"));
    }
    if (t.bits == 64) {
      fail(fmt::format(
          "uses {}{}; WGSL has no 64-bit integers or floats (browsers provide none), so 64-bit "
          "indices and values cannot be expressed; use int32/uint32/float32 (tensors of fewer "
          "than 2^31 elements)",
          t.str(), what.empty() ? "" : " (" + what + ")"));
    }
    if (t.is_bool()) return "bool";
    if (t.is_float()) {
      if (t.bits == 16) require_f16(what);
      return "f32";  // float16 and float8 compute in f32
    }
    return t.is_uint() ? "u32" : "i32";
  }

  void require_f16(const std::string& what) {
    if (!options_.shader_f16) {
      fail(fmt::format(
          "uses float16{}, but the WebGPU device lacks the `shader-f16` feature that WGSL's "
          "`enable f16;` needs; use float32 tensors, or run on a device that has shader-f16",
          what.empty() ? "" : " (" + what + ")"));
    }
    require("f16");
  }

  // The WGSL element type of buffer b's array.
  std::string element_type(const Buffer& b) {
    DataType t = b->dtype;
    std::string what = "buffer '" + b->name + "'";
    if (atomic_buffers_.count(b.get())) {
      value_type(t, what);
      if (t.bits != 32 && !(t.is_float() && t.bits == 16)) {
        fail(
            fmt::format("updates {} element of '{}' atomically; WGSL atomics are 32-bit: use a "
                        "float32, float16, int32 or uint32 buffer",
                        t.str(), b->name));
      }
      // float16 elements: two per 32-bit word, updated by compare-exchange on the word.
      return t.is_int() ? "atomic<i32>" : "atomic<u32>";
    }
    if (is_packed_global(b)) {
      if (written_.count(b->name)) {
        fail(fmt::format(
            "writes the {} tensor '{}'; WGSL storage buffers hold 32-bit words (and float16), so "
            "storing one {}-bit element would race with its neighbours; make the output int32, "
            "uint32, float32 or float16",
            t.str(), b->name, t.is_bool() ? 8 : int(t.bits)));
      }
      value_type(t, what);
      return "u32";
    }
    std::string v = value_type(t, what);
    if (t.is_float() && t.bits == 16) return "f16";
    return v;
  }

  // A float16 buffer updated atomically: array<atomic<u32>>, two elements per word (the
  // even index in the low half, as the host's little-endian bytes have it).
  bool is_atomic16(const Buffer& b) const {
    return atomic_buffers_.count(b.get()) && b->dtype.is_float() && b->dtype.bits == 16;
  }

  int64_t element_bytes(const Buffer& b) {
    std::string e = element_type(b);
    return e == "f16" ? 2 : 4;
  }

  // ---------------------------------------------------------------- analysis

  void find_atomic_buffers(const Stmt& body) {
    post_order_visit(body, [&](const Stmt*, const Expr* e) {
      if (!e) return;
      if (auto* c = e->as<CallNode>(); c && c->call_kind == CallKind::kAtomic) {
        auto* element = c->args[0].as<LoadNode>();
        if (element && element->buffer->scope != StorageScope::kVar &&
            element->buffer->scope != StorageScope::kLocal &&
            element->buffer->scope != StorageScope::kFragment) {
          atomic_buffers_.insert(element->buffer.get());
          if (element->buffer->scope == StorageScope::kGlobal) {
            // The parameter buffer object may differ from the one the access names.
            for (const auto& p : func_->params)
              if (p.is_buffer() && p.buffer->name == element->buffer->name)
                atomic_buffers_.insert(p.buffer.get());
          }
        }
      }
    });
  }

  static bool may_divide_by_zero(const Stmt& body) {
    bool found = false;
    post_order_visit(body, [&](const Stmt*, const Expr* e) {
      if (found || !e) return;
      auto* b = e->as<BinaryNode>();
      if (!b || (b->op != BinaryOp::kFloorDiv && b->op != BinaryOp::kFloorMod)) return;
      if (b->dtype.is_float()) return;
      const int64_t* divisor = as_const_int(b->b);
      if (!divisor || *divisor == 0) found = true;
    });
    return found;
  }

  std::array<int64_t, 3> workgroup_size(const PrimFunc& func) {
    std::array<int64_t, 3> size{1, 1, 1};
    static const std::map<std::string, int> axes = {
        {"threadIdx.x", 0}, {"threadIdx.y", 1}, {"threadIdx.z", 2}};
    post_order_visit(func->body, [&](const Stmt* s, const Expr*) {
      if (!s) return;
      auto* f = s->as<ForNode>();
      if (!f || f->for_kind != ForKind::kThreadBinding) return;
      auto axis = axes.find(f->thread_tag);
      if (axis == axes.end()) return;
      Expr extent = transform::simplify(f->end - f->begin);
      const int64_t* n = as_const_int(extent);
      if (!n) {
        fail(
            fmt::format("binds '{}' to {} over a non-constant extent; WGSL's @workgroup_size "
                        "needs constant thread counts",
                        f->var.name(), f->thread_tag));
      }
      size[axis->second] = std::max(size[axis->second], *n);
    });
    return size;
  }

  bool non_negative(const Expr& e) { return transform::bounds_of(e, bounds_).non_negative(); }

  // ---------------------------------------------------------------- expressions

  Printed round(Printed v, DataType t) {
    if (t.is_float() && t.bits == 16) return {"f32(f16(" + v.text + "))", true};
    if (t.is_float8())
      fail(
          fmt::format("computes a {} value that needs rounding; the webgpu backend reads float8 "
                      "but does not round to it: compute in float16 or float32",
                      t.str()));
    if (t.is_int() && t.bits < 32) {
      int s = 32 - t.bits;
      return {fmt::format("(({} << {}u) >> {}u)", paren(v), s, s), true};
    }
    if (t.is_uint() && t.bits < 32)
      return {fmt::format("({} & 0x{:X}u)", paren(v), (1u << t.bits) - 1), true};
    return v;
  }

  std::string zero_of(DataType t) {
    if (t.is_float()) return "0.0f";
    return t.is_uint() ? "0u" : "0";
  }

  Printed cast_to(DataType to, const Expr& value) {
    DataType from = value.dtype();
    Printed v = print(value);
    if (from == to) return v;
    std::string vt = value_type(to, "");
    if (to.is_bool()) {
      if (from.is_bool()) return v;
      return {fmt::format("({} != {})", paren(v), zero_of(from)), true};
    }
    std::string from_t = value_type(from, "");
    Printed converted = from_t == vt ? v : Printed{fmt::format("{}({})", vt, v.text), true};
    if (to.is_float() && to.bits == 16) return round(converted, to);
    if (to.is_float8()) {
      fail(fmt::format("converts to {}; the webgpu backend reads float8 but does not round to it",
                       to.str()));
    }
    if (to.is_integer() && to.bits < 32) {
      // Through the 32-bit integer of the other signedness first where needed, so a float
      // converts by value and then wraps.
      return round(converted, to);
    }
    return converted;
  }

  Printed print(const Expr& e) { return dispatch_expr(e); }

  Printed visit_expr(const IntImmNode* i, const Expr&) override {
    DataType t = i->dtype;
    value_type(t, "a constant");
    if (t.is_bool()) return {i->value ? "true" : "false", true};
    if (t.is_uint()) return {fmt::format("{}u", uint32_t(i->value)), true};
    int32_t v = int32_t(i->value);
    if (v == std::numeric_limits<int32_t>::min()) return {"(-2147483647 - 1)", true};
    return {v < 0 ? fmt::format("({})", v) : std::to_string(v), true};
  }
  Printed visit_expr(const FloatImmNode* f, const Expr&) override {
    value_type(f->dtype, "a constant");
    Printed p{f32_literal(f->value), true};
    if (f->dtype.is_float() && f->dtype.bits == 16) {
      double r = double(float(f->value));
      bool exact = std::floor(r) == r && std::fabs(r) <= 2048;
      if (!exact) return round(p, f->dtype);
    }
    return p;
  }
  Printed visit_expr(const VarNode*, const Expr& e) override {
    return {var_name(Var(std::static_pointer_cast<const VarNode>(e.node()))), true};
  }
  Printed visit_expr(const BinaryNode* op, const Expr&) override { return print_binary(op); }
  Printed visit_expr(const UnaryNode* u, const Expr&) override {
    Printed a = print(u->a);
    if (u->op == UnaryOp::kNot) {
      if (u->a.dtype().is_bool()) return {"!" + paren(a), true};
      return {fmt::format("({} == {})", paren(a), zero_of(u->a.dtype())), true};
    }
    if (u->dtype.is_uint()) return round({"(0u - " + paren(a) + ")", true}, u->dtype);
    return round({"(-" + paren(a) + ")", true}, u->dtype);
  }
  Printed visit_expr(const SelectNode* s, const Expr&) override {
    value_type(s->dtype, "");
    return {fmt::format("select({}, {}, {})", print(s->false_value).text, print(s->true_value).text,
                        print(s->cond).text),
            true};
  }
  Printed visit_expr(const CastNode* c, const Expr&) override {
    return cast_to(c->dtype, c->value);
  }
  Printed visit_expr(const LoadNode* op, const Expr&) override { return print_load(op); }
  Printed visit_expr(const CallNode* op, const Expr&) override { return print_call(op); }

  Printed print_binary(const BinaryNode* op) {
    DataType t = op->a.dtype();
    value_type(t, "");
    Printed a = print(op->a);
    Printed b = print(op->b);
    auto infix = [&](const char* sym) -> Printed {
      return {fmt::format("({} {} {})", paren(a), sym, paren(b)), true};
    };
    auto call2 = [&](const std::string& fn) -> Printed {
      return {fmt::format("{}({}, {})", fn, a.text, b.text), true};
    };
    switch (op->op) {
      case BinaryOp::kAdd:
        return round(infix("+"), op->dtype);
      case BinaryOp::kSub:
        return round(infix("-"), op->dtype);
      case BinaryOp::kMul:
        return round(infix("*"), op->dtype);
      case BinaryOp::kDiv:
        return round(infix("/"), op->dtype);
      case BinaryOp::kFloorDiv:
      case BinaryOp::kFloorMod: {
        bool div = op->op == BinaryOp::kFloorDiv;
        if (t.is_float()) {
          require("floordiv");
          return round(call2(div ? "tilec_floordiv_f32" : "tilec_floormod_f32"), op->dtype);
        }
        const int64_t* divisor = as_const_int(op->b);
        bool nonzero = divisor && *divisor != 0;
        // WGSL's / and % truncate; that is floor where both sides are non-negative.
        if (nonzero && (t.is_uint() || (non_negative(op->a) && non_negative(op->b))))
          return round(infix(div ? "/" : "%"), op->dtype);
        require("floordiv");
        std::string fn = t.is_uint() ? (div ? "tilec_div_u32" : "tilec_mod_u32")
                                     : (div ? "tilec_floordiv_i32" : "tilec_floormod_i32");
        return round(call2(fn), op->dtype);
      }
      case BinaryOp::kMin:  // b < a ? b : a, as the interpreter chooses (NaN included)
        return {fmt::format("select({}, {}, {} < {})", a.text, b.text, paren(b), paren(a)), true};
      case BinaryOp::kMax:
        return {fmt::format("select({}, {}, {} < {})", a.text, b.text, paren(a), paren(b)), true};
      case BinaryOp::kEQ:
        return infix("==");
      case BinaryOp::kNE:
        return infix("!=");
      case BinaryOp::kLT:
        return infix("<");
      case BinaryOp::kLE:
        return infix("<=");
      case BinaryOp::kGT:
        return infix(">");
      case BinaryOp::kGE:
        return infix(">=");
      case BinaryOp::kAnd:
        return infix("&&");
      case BinaryOp::kOr:
        return infix("||");
      case BinaryOp::kBitAnd:
        return infix("&");
      case BinaryOp::kBitOr:
        return infix("|");
      case BinaryOp::kBitXor:
        return t.is_bool() ? infix("!=") : infix("^");
      case BinaryOp::kShl:
      case BinaryOp::kShr: {
        // The count modulo the width (the IR's rule); WGSL shifts by a u32.
        std::string count = fmt::format("(u32({}) & {}u)", b.text, t.bits - 1);
        if (op->op == BinaryOp::kShr) {
          // A small signed value is held sign-extended, so >> in 32 bits is the same.
          return {fmt::format("({} >> {})", paren(a), count), true};
        }
        return round({fmt::format("({} << {})", paren(a), count), true}, op->dtype);
      }
    }
    fail("has an unknown binary operator");
  }

  // The element `index` of global packed buffer b (bytes or halves in 32-bit words).
  Printed packed_load(const Buffer& b, const std::string& index) {
    DataType t = b->dtype;
    int bits = t.is_bool() ? 8 : t.bits;
    int per_word = 32 / bits;
    std::string word = fmt::format("{}[u32({}) / {}u]", buffer_name(b), index, per_word);
    std::string raw = fmt::format("(({} >> ((u32({}) % {}u) * {}u)) & 0x{:X}u)", word, index,
                                  per_word, bits, (1ull << bits) - 1);
    if (t.is_bool()) return {"(" + raw + " != 0u)", true};
    if (t.is_float8()) {
      require("float8");
      return {fmt::format("tilec_f8{}_to_f32({})",
                          t.code == TypeCode::kFloat8E4M3 ? "e4m3" : "e5m2", raw),
              true};
    }
    if (t.is_uint()) return {raw, true};
    int s = 32 - bits;
    return {fmt::format("((i32({}) << {}u) >> {}u)", raw, s, s), true};
  }

  std::string index_of(const Buffer& b, const std::vector<Expr>& indices) {
    if (indices.size() != 1) {
      fail(
          fmt::format("accesses '{}' with {} indices; WGSL code needs flat accesses (run "
                      "flatten_buffers first)",
                      b->name, indices.size()));
    }
    DataType t = indices[0].dtype();
    value_type(t, "the index of '" + b->name + "'");
    return print(indices[0]).text;
  }

  Printed print_load(const LoadNode* op) {
    const Buffer& b = op->buffer;
    if (!op->dtype.is_scalar()) {
      fail(fmt::format("has a {}-lane vector load of '{}' outside a vector move", op->dtype.lanes,
                       b->name));
    }
    value_type(op->dtype, "buffer '" + b->name + "'");
    if (b->scope == StorageScope::kVar) return {buffer_name(b), true};
    std::string index = index_of(b, op->indices);
    if (is_packed_global(b)) return packed_load(b, index);
    std::string access = fmt::format("{}[{}]", buffer_name(b), index);
    if (is_atomic16(b)) {
      return {
          fmt::format("unpack2x16float((atomicLoad(&{}[u32({}) / 2u]) >> ((u32({}) % 2u) * 16u)) & "
                      "0xFFFFu).x",
                      buffer_name(b), index, index),
          true};
    }
    if (atomic_buffers_.count(b.get())) {
      std::string loaded = fmt::format("atomicLoad(&{})", access);
      if (b->dtype.is_float()) return {"bitcast<f32>(" + loaded + ")", true};
      return {loaded, true};
    }
    if (b->dtype.is_float() && b->dtype.bits == 16) return {"f32(" + access + ")", true};
    return {access, true};
  }

  Printed print_call(const CallNode* op) {
    if (op->call_kind == CallKind::kAtomic) {
      fail(
          fmt::format("uses the value of T.{}; WGSL's compare-exchange loops are statements, so "
                      "the webgpu backend supports atomic updates as statements only",
                      op->name));
    }
    if (op->call_kind == CallKind::kBarrier) {
      fail("uses a barrier as a value; a barrier is a statement");
    }
    if (op->call_kind == CallKind::kExtern) return print_extern_call(op);
    DataType t = op->dtype;
    std::string vt = value_type(t, "T." + op->name);
    std::vector<std::string> args;
    for (const auto& a : op->args) args.push_back(print(a).text);
    const std::string& n = op->name;
    std::string joined;
    for (const auto& a : args) joined += (joined.empty() ? "" : ", ") + a;
    Printed r;
    if (n == "rsqrt") {
      r = {fmt::format("(1.0f / sqrt({}))", args[0]), true};
    } else if (n == "sigmoid") {
      r = {fmt::format("(1.0f / (1.0f + exp(-({}))))", args[0]), true};
    } else if (wgsl_builtin_math().count(n)) {
      r = {fmt::format("{}({})", n, joined), true};
    } else if (n == "nearbyint") {
      r = {fmt::format("round({})", joined), true};  // WGSL's round takes halves to even
    } else if (n == "exp10") {
      r = {fmt::format("pow(10.0f, {})", joined), true};
    } else if (n == "log10") {
      r = {fmt::format("(log2({}) * 0.30102999566f)", joined), true};
    } else if (wgsl_math_helpers().count(n)) {
      require("math");
      r = {fmt::format("tilec_{}({})", n, joined), true};
    } else if (n == "erf") {
      fail(
          "calls T.erf, which WGSL has no function for; for GELU write its tanh form, 0.5 * x * "
          "(1 + T.tanh(0.7978845608 * (x + 0.044715 * x * x * x))), or compile for another "
          "target");
    } else {
      fail(fmt::format("calls the math function '{}', which the WGSL printer does not know", n));
    }
    return round(r, t);
  }

  Printed print_extern_call(const CallNode* op) {
    if (!gpu::is_subgroup_call(op->name)) {
      fail(
          fmt::format("calls the extern function '{}'; WGSL shaders cannot link external "
                      "functions, so T.call_extern is not supported on webgpu",
                      op->name));
    }
    if (!options_.subgroups) {
      fail(
          fmt::format("calls the subgroup operation '{}', but the WebGPU device lacks the "
                      "`subgroups` feature; compile with -subgroup_reduce=0",
                      op->name));
    }
    require("subgroups");
    uses_subgroups_ = true;
    const std::string& n = op->name;
    if (n == gpu::kSubgroupId) return {"i32(tilec_lidx / tilec_sg_size)", true};
    if (n == gpu::kSubgroupLocalId) return {"i32(tilec_sg_lane)", true};
    if (n == gpu::kSubgroupSize) return {"i32(tilec_sg_size)", true};
    if (n == gpu::kNumSubgroups) {
      return {fmt::format("i32(({}u + tilec_sg_size - 1u) / tilec_sg_size)", invocations_), true};
    }
    std::string combination = n.substr(std::string(gpu::kSubgroupReducePrefix).size());
    std::string fn = combination == "sum"   ? "subgroupAdd"
                     : combination == "max" ? "subgroupMax"
                                            : "subgroupMin";
    return {fmt::format("{}({})", fn, print(op->args.at(0)).text), true};
  }

  // ---------------------------------------------------------------- statements

  std::ostream& line() {
    body_ << std::string(2 * indent_, ' ');
    return body_;
  }
  void open() {
    body_ << "{\n";
    ++indent_;
  }
  void close() {
    --indent_;
    line() << "}\n";
  }

  void print_store(const StoreNode* op) {
    if (auto* v = op->value.as<LoadNode>(); v && !v->dtype.is_scalar()) {
      // A vector move: its lanes as scalar stores (WGSL arrays have no wide accesses of
      // their elements; the compiler vectorizes where the device can).
      DataType elem = v->dtype.element_of();
      for (int l = 0; l < v->dtype.lanes; ++l) {
        auto lane_load = std::make_shared<LoadNode>(
            elem, v->buffer,
            std::vector<Expr>{transform::simplify(v->indices.at(0) + make_int(l))});
        auto store = std::make_shared<StoreNode>();
        store->buffer = op->buffer;
        store->indices = {transform::simplify(op->indices.at(0) + make_int(l))};
        store->value = Expr(lane_load);
        print_store(store.get());
      }
      return;
    }
    const Buffer& b = op->buffer;
    DataType t = b->dtype;
    if (b->scope == StorageScope::kVar) {
      line() << buffer_name(b) << " = " << print(op->value).text << ";\n";
      return;
    }
    std::string index = index_of(b, op->indices);
    std::string access = fmt::format("{}[{}]", buffer_name(b), index);
    if (is_packed_global(b)) element_type(b);  // refuses the write, naming the tensor
    if (is_atomic16(b)) {
      std::string v = fresh("tilec_v");
      line() << "let " << v << " = " << print(op->value).text << ";\n";
      half_exchange_loop(b, index, [&](const std::string&) { return "f16(" + v + ")"; });
      return;
    }
    if (atomic_buffers_.count(b.get())) {
      std::string v = print(op->value).text;
      line() << fmt::format("atomicStore(&{}, {});\n", access,
                            t.is_float() ? "bitcast<u32>(" + v + ")" : v);
      return;
    }
    if (t.is_float() && t.bits == 16) {
      auto* same = op->value.as<LoadNode>();
      if (same && same->dtype == t && same->buffer->scope != StorageScope::kVar &&
          !is_packed_global(same->buffer) && !atomic_buffers_.count(same->buffer.get())) {
        line() << access << " = " << buffer_name(same->buffer) << "["
               << index_of(same->buffer, same->indices) << "];\n";
        return;
      }
      // The store rounds, so a rounding conversion of the value itself is redundant.
      Expr v = op->value;
      auto* c = v.as<CastNode>();
      std::string text =
          c && c->value.dtype() == DataType::Float32() ? print(c->value).text : print(v).text;
      line() << access << " = f16(" << text << ");\n";
      return;
    }
    if (t.is_float8()) {
      auto* same = op->value.as<LoadNode>();
      if (!same || same->dtype != t) {
        fail(
            fmt::format("stores a computed value into the {} buffer '{}'; the webgpu backend "
                        "reads float8 but does not round to it",
                        t.str(), b->name));
      }
    }
    line() << access << " = " << print(op->value).text << ";\n";
  }

  void print_atomic(const CallNode* op) {
    auto* element = op->args[0].as<LoadNode>();
    const Buffer& b = element->buffer;
    DataType t = op->dtype;
    BinaryOp combine = atomic_op(*op);
    std::string v = fresh("tilec_v");
    line() << "let " << v << " = " << print(op->args[1]).text << ";\n";
    if (!atomic_buffers_.count(b.get())) {
      // A thread's own element (local or var): an ordinary read-modify-write.
      auto load = std::make_shared<LoadNode>(element->dtype, b, element->indices);
      Expr value = Expr(std::make_shared<BinaryNode>(t, combine, Expr(load),
                                                     Expr(std::make_shared<VarNode>(v, t))));
      names_[value.as<BinaryNode>()->b.as<VarNode>()] = v;
      auto store = std::make_shared<StoreNode>();
      store->buffer = b;
      store->indices = element->indices;
      store->value = value;
      print_store(store.get());
      return;
    }
    std::string index = index_of(b, element->indices);
    std::string access = fmt::format("{}[{}]", buffer_name(b), index);
    if (t.is_integer() && t.bits == 32) {
      static const std::map<BinaryOp, const char*> names = {
          {BinaryOp::kAdd, "atomicAdd"},  {BinaryOp::kMax, "atomicMax"},
          {BinaryOp::kMin, "atomicMin"},  {BinaryOp::kBitAnd, "atomicAnd"},
          {BinaryOp::kBitOr, "atomicOr"}, {BinaryOp::kBitXor, "atomicXor"}};
      auto name = names.find(combine);
      if (name == names.end())
        fail(fmt::format("updates '{}' atomically with '{}'", b->name, to_string(combine)));
      line() << fmt::format("{}(&{}, {});\n", name->second, access, v);
      return;
    }
    if (combine != BinaryOp::kAdd && combine != BinaryOp::kMax && combine != BinaryOp::kMin)
      fail(fmt::format("updates the float '{}' atomically with '{}'", b->name, to_string(combine)));
    int which = combine == BinaryOp::kAdd ? 0 : combine == BinaryOp::kMax ? 1 : 2;
    if (is_atomic16(b)) {
      // Combined in f32 and rounded to float16, as the IR defines.
      half_exchange_loop(b, index, [&](const std::string& cur) {
        std::string next = which == 0   ? fmt::format("{} + {}", cur, v)
                           : which == 1 ? fmt::format("select({0}, {1}, {0} < {1})", cur, v)
                                        : fmt::format("select({0}, {1}, {1} < {0})", cur, v);
        return "f16(" + next + ")";
      });
      return;
    }
    // float32: compare-exchange on the bits, combining as BinaryOp kAdd/kMax/kMin do.
    std::string old = fresh("tilec_old");
    std::string next =
        which == 0 ? fmt::format("bitcast<f32>({}) + {}", old, v)
        : which == 1
            ? fmt::format("select(bitcast<f32>({0}), {1}, bitcast<f32>({0}) < {1})", old, v)
            : fmt::format("select(bitcast<f32>({0}), {1}, {1} < bitcast<f32>({0}))", old, v);
    line() << "loop ";
    open();
    line() << fmt::format("let {} = atomicLoad(&{});\n", old, access);
    line() << fmt::format(
        "if (atomicCompareExchangeWeak(&{}, {}, bitcast<u32>({})).exchanged) {{ break; }}\n",
        access, old, next);
    close();
  }

  std::string fresh(const std::string& base) { return unique_name(base); }

  // Replaces float16 element `index` of atomic16 buffer b by next(its value as f32) in one
  // compare-exchange of the word holding it.
  template <class Next>
  void half_exchange_loop(const Buffer& b, const std::string& index, Next next) {
    // Shifts and masks on the word (naga takes no run-time index into a vector value).
    std::string word = fmt::format("{}[u32({}) / 2u]", buffer_name(b), index);
    std::string old = fresh("tilec_old"), cur = fresh("tilec_cur"), bits = fresh("tilec_bits"),
                k = fresh("tilec_shift");
    line() << fmt::format("let {} = (u32({}) % 2u) * 16u;\n", k, index);
    line() << "loop ";
    open();
    line() << fmt::format("let {} = atomicLoad(&{});\n", old, word);
    line() << fmt::format("let {} = unpack2x16float(({} >> {}) & 0xFFFFu).x;\n", cur, old, k);
    // Rounded to float16 first, so packing the exact value needs no rounding of its own.
    line() << fmt::format("let {} = pack2x16float(vec2<f32>(f32({}), 0.0f)) & 0xFFFFu;\n", bits,
                          next(cur));
    line() << fmt::format(
        "if (atomicCompareExchangeWeak(&{0}, {1}, ({1} & ~(0xFFFFu << {2})) | ({3} << {2}))"
        ".exchanged) {{ break; }}\n",
        word, old, k, bits);
    close();
  }

  void print_alloc(const AllocateNode* op) {
    const Buffer& b = op->buffer;
    if (b->scope == StorageScope::kVar) {
      std::string type = value_type(b->dtype, "'" + b->name + "'");
      std::string init = op->init ? " = " + cast_to(b->dtype, *op->init).text : "";
      std::string name = unique_name(b->name);
      buffer_names_[b.get()] = name;
      line() << "var " << name << ": " << type << init << ";\n";
      print_stmt(op->body);
      return;
    }
    Expr numel = make_int(1, DataType::Int64());
    for (const auto& d : b->shape) numel = numel * cast(DataType::Int64(), d);
    numel = transform::simplify(numel);
    const int64_t* count = as_const_int(numel);
    if (!count) {
      fail(
          fmt::format("allocates '{}' ({}) with a symbolic size; WGSL arrays in workgroup and "
                      "private memory have constant sizes",
                      b->name, to_string(b->scope)));
    }
    int64_t n = std::max<int64_t>(*count, 1);
    std::string elem = element_type(b);
    if (is_atomic16(b)) n = (n + 1) / 2;  // two float16 elements per atomic word
    if (b->scope == StorageScope::kShared) {
      std::string name = unique_name(b->name, true);
      buffer_names_[b.get()] = name;
      workgroup_decls_ << fmt::format("var<workgroup> {}: array<{}, {}>;\n", name, elem, n);
      workgroup_bytes_ += (n * element_bytes(b) + 3) / 4 * 4;
    } else {
      std::string name = unique_name(b->name);
      buffer_names_[b.get()] = name;
      line() << fmt::format("var {}: array<{}, {}>;\n", name, elem, n);
    }
    print_stmt(op->body);
  }

  void print_for(const ForNode* op) {
    if (op->for_kind == ForKind::kThreadBinding) {
      static const std::map<std::string, std::string> indices = {
          {"blockIdx.x", "tilec_wid.x"},  {"blockIdx.y", "tilec_wid.y"},
          {"blockIdx.z", "tilec_wid.z"},  {"threadIdx.x", "tilec_lid.x"},
          {"threadIdx.y", "tilec_lid.y"}, {"threadIdx.z", "tilec_lid.z"}};
      auto it = indices.find(op->thread_tag);
      if (it == indices.end()) {
        fail(
            fmt::format("binds '{}' to the unknown thread tag '{}'; known: blockIdx.x/y/z, "
                        "threadIdx.x/y/z",
                        op->var.name(), op->thread_tag));
      }
      std::string type = value_type(op->var.dtype(), "loop variable '" + op->var.name() + "'");
      std::string index = fmt::format("{}({})", type, it->second);
      std::string begin = is_const_int(op->begin, 0) ? "" : paren(print(op->begin)) + " + ";
      std::string v = declare(op->var);
      bounds_[op->var.get()] = transform::loop_var_bounds(*op, bounds_);
      line() << "let " << v << ": " << type << " = " << begin << index << ";\n";
      line();
      open();
      print_stmt(op->body);
      close();
      return;
    }
    std::string type = value_type(op->var.dtype(), "loop variable '" + op->var.name() + "'");
    std::string begin = print(op->begin).text;
    std::string end = print(op->end).text;
    std::string v = declare(op->var);
    bounds_[op->var.get()] = transform::loop_var_bounds(*op, bounds_);
    std::string step =
        op->var.dtype().is_uint() ? fmt::format("{}u", op->step) : std::to_string(op->step);
    line() << fmt::format("for (var {0}: {1} = {2}; {0} {3} {4}; {0} += {5}) ", v, type, begin,
                          op->step > 0 ? "<" : ">", paren({end, false}),
                          op->step > 0 ? step : "(" + step + ")");
    open();
    print_stmt(op->body);
    close();
  }

  void print_stmt(const Stmt& s) {
    if (!s) return;
    dispatch_stmt(s);
  }

  void visit_stmt(const StoreNode* op, const Stmt&) override { return print_store(op); }
  void visit_stmt(const LetNode* op, const Stmt&) override {
    std::string value = print(op->value).text;
    std::string type = value_type(op->var.dtype(), "'" + op->var.name() + "'");
    std::string name = declare(op->var);
    bounds_[op->var.get()] = transform::bounds_of(op->value, bounds_);
    line() << "let " << name << ": " << type << " = " << value << ";\n";
    return print_stmt(op->body);
  }
  void visit_stmt(const ForNode* op, const Stmt&) override { return print_for(op); }
  void visit_stmt(const IfNode* op, const Stmt&) override {
    line() << "if (" << print(op->cond).text << ") ";
    open();
    print_stmt(op->then_case);
    if (op->else_case) {
      --indent_;
      line() << "} else ";
      open();
      print_stmt(op->else_case);
    }
    close();
  }
  void visit_stmt(const WhileNode* op, const Stmt&) override {
    line() << "while (" << print(op->cond).text << ") ";
    open();
    print_stmt(op->body);
    close();
  }
  void visit_stmt(const SeqNode* op, const Stmt&) override {
    for (const auto& c : op->stmts) print_stmt(c);
  }
  void visit_stmt(const AllocateNode* op, const Stmt&) override { return print_alloc(op); }
  void visit_stmt(const EvaluateNode* op, const Stmt&) override {
    if (auto* b = as_barrier(op->value)) {
      if (b->name == to_string(StorageScope::kGlobal)) line() << "storageBarrier();\n";
      line() << "workgroupBarrier();\n";
      return;
    }
    if (auto* a = as_atomic(op->value)) return print_atomic(a);
    line() << "_ = " << print(op->value).text << ";\n";
  }
  void visit_stmt(const LaunchNode*, const Stmt&) override {
    fail("contains a launch, which belongs to host code");
  }
  [[noreturn]] void tile_level() {
    fail(
        "still contains a tile-level statement (T.Kernel/copy/fill/gemm/reduce); run the "
        "webgpu lowering pipeline before code generation");
  }
  void visit_stmt(const KernelNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const CopyNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const FillNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const GemmNode*, const Stmt&) override { tile_level(); }
  void visit_stmt(const ReduceNode*, const Stmt&) override { tile_level(); }

  WgslOptions options_;
  PrimFunc func_;
  std::unordered_map<const VarNode*, std::string> names_;
  std::unordered_map<const BufferNode*, std::string> buffer_names_;
  std::map<std::string, std::string> global_names_;
  std::set<std::string> used_names_, module_names_;
  std::unordered_set<const BufferNode*> atomic_buffers_;
  std::set<std::string> written_;  // global buffers the kernel stores to, by name
  transform::VarBounds bounds_;
  std::set<std::string> helpers_;
  std::ostringstream body_, workgroup_decls_;
  int indent_ = 1;
  int64_t workgroup_bytes_ = 0;
  int64_t invocations_ = 1;
  bool uses_subgroups_ = false;
  std::string functions_;
};

bool is_device_function(const PrimFunc& f) {
  auto it = f->attrs.find(transform::kFunctionKindAttr);
  return it != f->attrs.end() && it->second == AttrValue(std::string("device"));
}

}  // namespace

std::string print_wgsl(const IRModule& mod, const WgslOptions& options,
                       std::vector<std::string>* entry_points) {
  WgslPrinter printer(options);
  std::vector<std::string> entries;
  for (const auto& f : mod.functions())
    if (is_device_function(f)) entries.push_back(printer.add_function(f));
  if (entries.empty()) {
    throw IRError(fmt::format(
        "webgpu device codegen: the module has no device function (attr {} = \"device\"); run "
        "the webgpu lowering pipeline, whose last pass splits host and device",
        transform::kFunctionKindAttr));
  }
  if (entry_points) *entry_points = entries;
  return printer.finish();
}

}  // namespace tilec::webgpu
