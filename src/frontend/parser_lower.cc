#include "frontend_lowering.h"
#include "tilec/ir/block_accumulator.h"
#include "tilec/ir/builder.h"
#include "tilec/ir/const_fold.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

namespace tilec::ir::frontend {

namespace {

constexpr const char* kSupportedLoops =
    "supported loops: T.Parallel, T.serial, T.Pipelined, range (also T.vectorized, T.unroll, "
    "T.thread_binding)";
constexpr const char* kSupportedStatementCalls =
    "supported statement calls: T.copy, T.fill, T.clear, T.gemm, T.reduce_sum, T.reduce_max, "
    "T.reduce_min, T.reduce_abssum, T.reduce_absmax, T.evaluate";
constexpr const char* kSupportedExprCalls =
    "supported T.* functions in expressions: exp, exp2, log, log2, sqrt, rsqrt, tanh, sigmoid, "
    "abs, pow, floor, ceil, max, min, fma, if_then_else, cast, ceildiv, infinity, call_extern, "
    "tvm_storage_sync and typed constants such as T.float16(1.0) or T.int32(n)";

struct Binding {
  enum Kind { kConst, kString, kVar, kBuffer, kVarBuffer, kModule } kind;
  Expr value;        // kConst: an immediate; kVar: the Var
  std::string text;  // kString: the string; kModule: "tilelang" or "tilelang.language"
  Buffer buffer;     // kBuffer / kVarBuffer
};

// The element A[i, j] of a subscript that is read or assigned.
struct ElementAccess {
  Buffer buffer;
  std::vector<Expr> indices;
};

// The BinaryOp a Python operator token spells ("+", "//", "<=", "and"): the inverse of
// to_string(BinaryOp), so the parser and the printer spell operators alike.
BinaryOp binary_op_for(std::string_view token) {
  for (int i = 0; i <= int(BinaryOp::kOr); ++i) {
    if (token == to_string(BinaryOp(i))) return BinaryOp(i);
  }
  throw IRError("unknown binary operator '" + std::string(token) + "'");
}

// Positional and keyword arguments of a call matched to parameter names.
struct BoundArgs {
  std::vector<const AstExpr*> values;  // by parameter index; null when absent
  const AstExpr* operator[](size_t i) const { return values[i]; }
};

bool fits_int32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

class Lowering {
 public:
  Lowering(std::string_view source, const ParseOptions& options)
      : source_(source), options_(options) {
    scopes_.emplace_back();
  }

  IRModule run(const AstModule& module) {
    std::vector<PrimFunc> functions;
    for (const auto& stmt : module.body) {
      switch (stmt->kind) {
        case AstStmtKind::kImport:
          import_statement(*stmt);
          break;
        case AstStmtKind::kAssign:
          module_constant(*stmt);
          break;
        case AstStmtKind::kFunctionDef: {
          PrimFunc f = function(*stmt);
          for (const auto& g : functions)
            if (g->name == f->name)
              fail(stmt->span, "function '" + f->name + "' is defined twice",
                   "give each @T.prim_func a distinct name");
          functions.push_back(std::move(f));
          break;
        }
        case AstStmtKind::kPass:
          break;
        case AstStmtKind::kExpr:
          if (stmt->value->kind == AstKind::kString) break;  // module docstring
          [[fallthrough]];
        default:
          fail(stmt->span, "unsupported statement at module level",
               "a kernel file holds imports, constants (M = 1024, dtype = \"float16\", "
               "M = T.symbolic(\"M\")) and @T.prim_func functions");
      }
    }
    check_unused_defines();
    return IRModule(std::move(functions));
  }

 private:
  // ---------------------------------------------------------------- errors
  [[noreturn]] void fail(Span span, std::string message, std::string hint = "") const {
    throw make_source_error(options_.filename, source_, span, std::move(message), std::move(hint));
  }
  // Runs an IR factory, re-raising its IRError at `span`.
  template <class F>
  auto guarded(Span span, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const SourceError&) {
      throw;
    } catch (const IRError& e) {
      fail(span, e.what());
    }
  }

  // ---------------------------------------------------------------- names
  const Binding* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
  }
  void bind_local(const std::string& name, Binding binding, Span span) {
    if (const Binding* old = lookup(name)) {
      if (old->kind == Binding::kModule)
        fail(span, "'" + name + "' names an imported module and cannot be rebound",
             "pick another name");
      if (lookup_is_local(name))
        fail(span, "cannot rebind '" + name + "': names bound in a kernel are immutable",
             "use a new name, or declare a mutable scalar with " + name +
                 " = T.alloc_var(dtype) and assign to it");
      fail(span, "'" + name + "' is a module constant and cannot be rebound inside a function",
           "use a new name, or override the constant with -D " + name + "=VALUE");
    }
    scopes_.back()[name] = std::move(binding);
  }
  bool lookup_is_local(const std::string& name) const {
    for (size_t i = 1; i < scopes_.size(); ++i)
      if (scopes_[i].count(name)) return true;
    return false;
  }
  std::string module_constant_names() const {
    std::string names;
    for (const auto& name : constant_order_) names += (names.empty() ? "" : ", ") + name;
    return names.empty() ? "(none)" : names;
  }

  // Resolves `T.name` (or tilelang.language.name) to "name"; empty when `e` is not one.
  std::string language_function(const AstExpr& e) const {
    if (e.kind != AstKind::kAttribute) return "";
    const AstExpr& base = *e.base;
    if (base.kind == AstKind::kName) {
      const Binding* b = lookup(base.name);
      if (b && b->kind == Binding::kModule && b->text == "tilelang.language") return e.name;
      return "";
    }
    if (base.kind == AstKind::kAttribute && base.name == "language" &&
        base.base->kind == AstKind::kName) {
      const Binding* b = lookup(base.base->name);
      if (b && b->kind == Binding::kModule && b->text == "tilelang") return e.name;
    }
    return "";
  }
  [[noreturn]] void fail_not_language(const AstExpr& e) const {
    const AstExpr* root = &e;
    while (root->base) root = root->base.get();
    if (root->kind == AstKind::kName && !lookup(root->name))
      fail(root->span, "name '" + root->name + "' is not defined",
           root->name == "T" ? "add `import tilelang.language as T` at the top of the file"
                             : "only attributes of tilelang.language (T.*) are supported");
    fail(e.span, "unsupported attribute '." + e.name + "'",
         "only functions of tilelang.language (imported as T) are supported");
  }

  // Where the source text of `e` begins (binary nodes are located at their operator).
  static Span start_of(const AstExpr& e) {
    const AstExpr* cur = &e;
    while (true) {
      if (cur->base)
        cur = cur->base.get();
      else if (!cur->children.empty() && cur->children[0] && cur->kind != AstKind::kCall &&
               cur->kind != AstKind::kSubscript && cur->kind != AstKind::kTuple &&
               cur->kind != AstKind::kList && cur->kind != AstKind::kUnary)
        cur = cur->children[0].get();
      else
        return cur->span;
    }
  }

  // ---------------------------------------------------------------- module level
  void import_statement(const AstStmt& s) {
    std::string full = s.imported.empty() ? s.module : s.module + "." + s.imported;
    if (full != "tilelang" && full != "tilelang.language")
      fail(s.span, "unsupported import of '" + full + "'",
           "kernel files import only tilelang: `import tilelang` and "
           "`import tilelang.language as T` (or `from tilelang import language as T`)");
    std::string name = s.alias;
    if (name.empty()) {
      if (!s.imported.empty())
        name = s.imported;
      else if (full == "tilelang")
        name = "tilelang";
      else
        fail(s.span, "`import tilelang.language` needs an alias",
             "write `import tilelang.language as T`");
    }
    scopes_[0][name] = Binding{Binding::kModule, {}, full, {}};
  }

  void module_constant(const AstStmt& s) {
    if (s.target->kind != AstKind::kName)
      fail(s.target->span, "module-level assignments must bind one name",
           "write one constant per line, e.g. `M = 1024`");
    const std::string& name = s.target->name;
    if (const Binding* old = lookup(name); old && old->kind == Binding::kModule)
      fail(s.target->span, "'" + name + "' names an imported module and cannot be rebound");
    Binding value = module_value(*s.value, name);
    auto define = options_.defines.find(name);
    if (define != options_.defines.end()) {
      value = define_value(name, define->second, value);
      used_defines_.insert(name);
    }
    if (std::find(constant_order_.begin(), constant_order_.end(), name) == constant_order_.end())
      constant_order_.push_back(name);
    scopes_[0][name] = std::move(value);
  }

  Binding module_value(const AstExpr& e, const std::string& name) {
    if (e.kind == AstKind::kString) return {Binding::kString, {}, e.name, {}};
    if (e.kind == AstKind::kCall && e.base) {
      std::string fn = language_function(*e.base);
      if (fn == "symbolic" || fn == "dynamic") {
        auto args = bind_args(e, "T." + fn, {"name", "dtype"}, 1);
        if (args[0]->kind != AstKind::kString)
          fail(args[0]->span, "T." + fn + " expects the dimension name as a string",
               "write " + name + " = T." + fn + "(\"" + name + "\")");
        DataType t = args[1] ? dtype_arg(*args[1]) : DataType::Int32();
        if (!t.is_int())
          fail(args[1]->span, "symbolic dimensions must have an integer dtype, not " + t.str());
        return {Binding::kVar, make_var(args[0]->name, t, e.span), "", {}};
      }
    }
    if (e.kind == AstKind::kAttribute) {
      std::string fn = language_function(e);
      if (!fn.empty() && DataType::parse(fn)) return {Binding::kString, {}, fn, {}};
    }
    if (e.kind == AstKind::kName) {
      const Binding* b = lookup(e.name);
      if (b && b->kind == Binding::kString) return *b;
    }
    Expr value = expr(e);
    if (!value.as<IntImmNode>() && !value.as<FloatImmNode>())
      fail(start_of(e), "module constant '" + name + "' is not a constant number",
           "module constants are numbers (M = 1024), arithmetic of earlier number constants, "
           "dtype strings (dtype = \"float16\") or symbolic dims (M = T.symbolic(\"M\"))");
    return {Binding::kConst, value, "", {}};
  }

  Binding define_value(const std::string& name, const std::string& text, const Binding& original) {
    auto bad = [&](const std::string& why) {
      fail({}, "-D " + name + "=" + text + ": " + why,
           "pass -D " + name + "=VALUE with a value of the constant's kind");
    };
    int64_t i = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
    bool is_int = ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
    if (ec == std::errc::result_out_of_range && ptr == text.data() + text.size())
      bad("the value is out of range; integer constants must lie in [" +
          std::to_string(std::numeric_limits<int64_t>::min()) + ", " +
          std::to_string(std::numeric_limits<int64_t>::max()) + "]");
    char* end = nullptr;
    double d = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    bool is_float = !text.empty() && end == text.c_str() + text.size() && std::isfinite(d);
    switch (original.kind) {
      case Binding::kString: {
        std::string s = text;
        if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
          s = s.substr(1, s.size() - 2);
        return {Binding::kString, {}, s, {}};
      }
      case Binding::kVar:
        if (!is_int || i <= 0)
          bad("'" + name + "' is a symbolic dimension; expected a positive integer");
        return {Binding::kConst,
                make_int(i, fits_int32(i) ? DataType::Int32() : DataType::Int64()),
                "",
                {}};
      default: {
        DataType t = original.value.dtype();
        if (t.is_float()) {
          if (!is_float) bad("'" + name + "' is a float constant; expected a number");
          return {Binding::kConst, make_float(d, t), "", {}};
        }
        if (!is_int) bad("'" + name + "' is an integer constant; expected an integer");
        return {Binding::kConst,
                make_int(i, fits_int32(i) ? DataType::Int32() : DataType::Int64()),
                "",
                {}};
      }
    }
  }

  void check_unused_defines() const {
    for (const auto& [name, value] : options_.defines) {
      if (!used_defines_.count(name))
        fail({}, "-D " + name + "=" + value + ": the file defines no constant '" + name + "'",
             "constants it defines: " + module_constant_names());
    }
  }

  // ---------------------------------------------------------------- functions
  PrimFunc function(const AstStmt& s) {
    bool prim_func = false;
    for (const auto& d : s.decorators) {
      const AstExpr& target = d->kind == AstKind::kCall ? *d->base : *d;
      if (language_function(target) == "prim_func" && d->kind != AstKind::kCall) {
        prim_func = true;
        continue;
      }
      if (target.kind == AstKind::kAttribute) {
        const AstExpr* root = &target;
        while (root->base) root = root->base.get();
        if (root->kind == AstKind::kName && !lookup(root->name)) fail_not_language(target);
      }
      fail(d->span, "unsupported decorator",
           "decorate kernels with @T.prim_func only (tilelang.jit wrappers are not needed: "
           "tilec compiles every @T.prim_func of the file)");
    }
    if (!prim_func)
      fail(s.span, "function '" + s.name + "' is not decorated with @T.prim_func",
           "kernel files define kernels as @T.prim_func functions at module level");
    scopes_.emplace_back();
    out_of_scope_.clear();
    std::vector<Param> params;
    for (const auto& p : s.params) {
      if (scopes_.back().count(p.name)) fail(p.span, "duplicate parameter '" + p.name + "'");
      if (!p.annotation)
        fail(p.span, "parameter '" + p.name + "' has no annotation",
             "annotate it: " + p.name + ": T.Tensor((M, N), \"float32\") or " + p.name +
                 ": T.int32");
      params.push_back(parameter(p));
      const Param& param = params.back();
      if (param.is_buffer())
        bind_local(p.name, {Binding::kBuffer, {}, "", param.buffer}, p.span);
      else
        bind_local(p.name, {Binding::kVar, param.var, "", {}}, p.span);
    }
    Stmt body = block(s.body, s.span);
    scopes_.pop_back();
    return make_prim_func(s.name, std::move(params), std::move(body), {}, s.span);
  }

  Param parameter(const AstParam& p) {
    const AstExpr& a = *p.annotation;
    if (a.kind == AstKind::kAttribute) {
      std::string fn = language_function(a);
      if (auto t = DataType::parse(fn); t && !fn.empty())
        return make_scalar_param(make_var(p.name, *t, p.span));
    }
    if (a.kind == AstKind::kCall) {
      std::string fn = language_function(*a.base);
      if (fn == "Tensor" || fn == "Buffer") {
        auto args = bind_args(a, "T." + fn, {"shape", "dtype", "read_only"}, 1);
        std::vector<Expr> shape = shape_arg(*args[0], /*parameter=*/true);
        DataType t = args[1] ? dtype_arg(*args[1]) : DataType::Float32();
        bool read_only = args[2] ? bool_arg(*args[2], "read_only") : false;
        auto node = std::make_shared<BufferNode>(
            *make_buffer(p.name, shape, t, StorageScope::kGlobal, p.span));
        node->read_only = read_only;
        return make_buffer_param(node);
      }
    }
    fail(a.span, "unsupported annotation for parameter '" + p.name + "'",
         "annotate tensors with T.Tensor((M, N), dtype) or T.Buffer((M, N), dtype) and scalars "
         "with a dtype such as T.int32 or T.float32");
  }

  // ---------------------------------------------------------------- arguments
  BoundArgs bind_args(const AstExpr& call, const std::string& fn,
                      const std::vector<std::string>& names, size_t required) {
    BoundArgs out;
    out.values.assign(names.size(), nullptr);
    auto signature = [&] {
      std::string s;
      for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
      return fn + "(" + s + ")";
    };
    if (call.children.size() > names.size())
      fail(call.children[names.size()]->span,
           fn + " takes at most " + std::to_string(names.size()) + " argument(s), got " +
               std::to_string(call.children.size()),
           "signature: " + signature());
    for (size_t i = 0; i < call.children.size(); ++i) out.values[i] = call.children[i].get();
    for (const auto& kw : call.keywords) {
      auto it = std::find(names.begin(), names.end(), kw.name);
      if (it == names.end()) {
        std::string accepted;
        for (size_t i = 0; i < names.size(); ++i)
          accepted += (accepted.empty() ? "" : ", ") + names[i];
        fail(kw.span, fn + " got an unexpected keyword argument '" + kw.name + "'",
             "accepted arguments: " + accepted);
      }
      size_t i = size_t(it - names.begin());
      if (out.values[i]) fail(kw.span, fn + " got multiple values for argument '" + kw.name + "'");
      out.values[i] = kw.value.get();
    }
    for (size_t i = 0; i < required; ++i)
      if (!out.values[i])
        fail(call.span, fn + " is missing argument '" + names[i] + "'",
             "signature: " + signature());
    return out;
  }
  void no_keywords(const AstExpr& call, const std::string& fn) {
    if (!call.keywords.empty())
      fail(call.keywords[0].span,
           fn + " takes no keyword arguments (got '" + call.keywords[0].name + "')");
  }

  DataType dtype_arg(const AstExpr& e) {
    std::string text;
    if (e.kind == AstKind::kString) {
      text = e.name;
    } else if (e.kind == AstKind::kName) {
      const Binding* b = lookup(e.name);
      if (!b)
        fail(e.span, "name '" + e.name + "' is not defined",
             "a dtype is a string such as \"float16\"");
      if (b->kind != Binding::kString)
        fail(e.span, "'" + e.name + "' is not a dtype string",
             "a dtype is a string such as \"float16\"");
      text = b->text;
    } else if (e.kind == AstKind::kAttribute && !language_function(e).empty()) {
      text = language_function(e);
    } else {
      fail(e.span, "expected a dtype", "write a dtype string such as \"float16\" or T.float16");
    }
    auto t = DataType::parse(text);
    if (!t)
      fail(e.span, "unknown dtype '" + text + "'",
           "supported dtypes: " + std::string(supported_dtype_names()));
    return *t;
  }

  bool bool_arg(const AstExpr& e, const std::string& what) {
    if (e.kind == AstKind::kBool) return e.name == "True";
    Expr v = expr(e);
    if (auto* i = v.as<IntImmNode>()) return i->value != 0;
    fail(e.span, "'" + what + "' must be True or False");
  }

  int64_t int_arg(const AstExpr& e, const std::string& what) {
    Expr v = expr(e);
    if (auto* i = v.as<IntImmNode>(); i && !v.dtype().is_bool()) return i->value;
    fail(e.span, "'" + what + "' must be a constant integer",
         "use an integer literal or a module constant");
  }

  // (M, N), [M, N] or a single extent.
  std::vector<Expr> shape_arg(const AstExpr& e, bool parameter) {
    std::vector<const AstExpr*> dims;
    if (e.kind == AstKind::kTuple || e.kind == AstKind::kList) {
      for (const auto& c : e.children) dims.push_back(c.get());
    } else {
      dims.push_back(&e);
    }
    if (dims.empty()) fail(e.span, "a shape needs at least one dimension", "write e.g. (64, 64)");
    std::vector<Expr> shape;
    for (const AstExpr* d : dims) {
      Expr v = expr(*d);
      if (!v.dtype().is_int())
        fail(d->span, "shape dimensions must be integers, not " + v.dtype().str());
      if (auto* i = v.as<IntImmNode>(); i && i->value <= 0)
        fail(d->span, "shape dimensions must be positive, got " + std::to_string(i->value));
      if (parameter && !v.as<IntImmNode>() && !v.as<VarNode>())
        fail(d->span, "tensor shape dimensions must be constants or symbolic names",
             "declare a symbolic dimension at module level: M = T.symbolic(\"M\")");
      shape.push_back(v);
    }
    return shape;
  }

  Buffer buffer_name(const AstExpr& e, const std::string& fn) {
    if (e.kind == AstKind::kName) {
      const Binding* b = lookup(e.name);
      if (b && (b->kind == Binding::kBuffer || b->kind == Binding::kVarBuffer)) return b->buffer;
      if (!b) fail(e.span, "name '" + e.name + "' is not defined");
    }
    fail(e.span, fn + " expects a buffer here",
         "pass a tensor parameter or a buffer from T.alloc_shared / T.alloc_fragment / "
         "T.alloc_local");
  }

  TileRegion region_arg(const AstExpr& e, const std::string& fn) {
    if (e.kind == AstKind::kName) return TileRegion{buffer_name(e, fn), {}};
    if (e.kind != AstKind::kSubscript)
      fail(e.span, fn + " expects a buffer or a buffer region",
           "write a buffer `A`, an element origin `A[i, j]` or slices `A[i:i + 4, j]`");
    Buffer buffer = buffer_name(*e.base, fn);
    if (int(e.children.size()) != buffer->ndim())
      fail(e.span, "buffer '" + buffer->name + "' has " + std::to_string(buffer->ndim()) +
                       " dimension(s) but the region names " + std::to_string(e.children.size()));
    TileRegion region{buffer, {}};
    for (size_t d = 0; d < e.children.size(); ++d) {
      const AstExpr& c = *e.children[d];
      if (c.kind == AstKind::kSlice) {
        Expr start = c.children[0] ? expr(*c.children[0]) : make_int(0);
        Expr stop = c.children[1] ? expr(*c.children[1]) : buffer->shape[d];
        region.dims.push_back({start, stop});
      } else {
        region.dims.push_back({expr(c), std::nullopt});
      }
    }
    return region;
  }

  // ---------------------------------------------------------------- expressions
  // Constant operands fold with the IR core's arithmetic (tilec/ir/const_fold.h), the
  // interpreter's. Python evaluates these at definition time with unbounded integers,
  // so a result that does not fit its dtype, or a division by zero, is an error here
  // rather than a wrapped value; bool arithmetic and narrower dtypes are left unfolded.
  Expr fold(const Expr& e, Span span) {
    auto* b = e.as<BinaryNode>();
    if (!b) return e;
    DataType t = b->a.dtype();
    bool to_bool = is_comparison(b->op) || is_logical(b->op);
    auto* ia = b->a.as<IntImmNode>();
    auto* ib = b->b.as<IntImmNode>();
    if (ia && ib && (t == DataType::Int32() || t == DataType::Int64() || t.is_bool())) {
      auto r = int_binary(b->op, ia->value, ib->value, t);
      if (!r) {
        if (b->op != BinaryOp::kFloorDiv && b->op != BinaryOp::kFloorMod) return e;
        fail(span, "integer division by zero in a constant expression");
      }
      if (to_bool) return with_span(make_bool(r->value != 0), span);
      if (t.is_bool()) return e;
      if (r->overflowed)
        fail(span, "integer overflow in a constant expression (" + t.str() + ")",
             "use smaller values, or T.int64(...) for 64-bit constants");
      return with_span(make_int(r->value, t), span);
    }
    auto* fa = b->a.as<FloatImmNode>();
    auto* fb = b->b.as<FloatImmNode>();
    if (fa && fb && (t == DataType::Float32() || t == DataType::Float(64))) {
      bool divides =
          b->op == BinaryOp::kDiv || b->op == BinaryOp::kFloorDiv || b->op == BinaryOp::kFloorMod;
      if (divides && fb->value == 0) fail(span, "float division by zero in a constant expression");
      if (is_logical(b->op)) return e;
      double r = float_binary(b->op, fa->value, fb->value, t);
      return with_span(to_bool ? make_bool(r != 0) : make_float(r, t), span);
    }
    return e;
  }

  Expr binary_op(BinaryOp op, Expr a, Expr b, Span span) {
    return fold(guarded(span, [&] { return binary(op, a, b, span); }), span);
  }

  Expr negate(Expr a, Span span) {
    if (auto* i = a.as<IntImmNode>(); i && !a.dtype().is_bool()) {
      if (i->value == std::numeric_limits<int64_t>::min() ||
          (a.dtype() == DataType::Int32() && !fits_int32(-i->value)))
        fail(span, "integer overflow in a constant expression");
      return with_span(make_int(-i->value, a.dtype()), span);
    }
    if (auto* f = a.as<FloatImmNode>()) return with_span(make_float(-f->value, a.dtype()), span);
    return guarded(span, [&] { return unary(UnaryOp::kNeg, a, span); });
  }

  Expr expr(const AstExpr& e) {
    switch (e.kind) {
      case AstKind::kInt:
        return int_literal(e);
      case AstKind::kFloat: {
        char* end = nullptr;
        double v = std::strtod(e.name.c_str(), &end);
        if (!std::isfinite(v)) fail(e.span, "float literal '" + e.name + "' is out of range");
        return with_span(make_float(v), e.span);
      }
      case AstKind::kBool:
        return with_span(make_bool(e.name == "True"), e.span);
      case AstKind::kString:
        fail(e.span, "a string is not a value here",
             "strings name dtypes, e.g. T.cast(x, \"float16\") or T.alloc_shared((64, 64), "
             "\"float16\")");
      case AstKind::kNone:
        fail(e.span, "None is not a value in kernels");
      case AstKind::kName:
        return name_expr(e);
      case AstKind::kAttribute: {
        std::string fn = language_function(e);
        if (fn.empty()) fail_not_language(e);
        if (DataType::parse(fn))
          fail(e.span, "T." + fn + " is a dtype, not a value",
               "write T." + fn + "(value) for a typed constant or a cast");
        fail(e.span, "T." + fn + " is not a value", "call it: T." + fn + "(...)");
      }
      case AstKind::kCall:
        return call_expr(e);
      case AstKind::kSubscript: {
        ElementAccess access = element_access(e, /*is_store=*/false);
        return guarded(e.span, [&] { return load(access.buffer, access.indices, e.span); });
      }
      case AstKind::kSlice:
        fail(e.span, "a slice is only allowed inside a subscript");
      case AstKind::kTuple:
      case AstKind::kList:
        fail(e.span, "a tuple is not a value here", "tuples are shapes and grids");
      case AstKind::kBinary: {
        Expr a = expr(*e.children[0]);
        Expr b = expr(*e.children[1]);
        const std::string& op = e.name;
        if (op == "**") return guarded(e.span, [&] { return call("pow", {a, b}, e.span); });
        BinaryOp bop = binary_op_for(op);
        return binary_op(bop, a, b, e.span);
      }
      case AstKind::kUnary: {
        Expr a = expr(*e.children[0]);
        if (e.name == "-") return negate(a, e.span);
        if (auto* i = a.as<IntImmNode>()) return with_span(make_bool(i->value == 0), e.span);
        return guarded(e.span, [&] { return unary(UnaryOp::kNot, a, e.span); });
      }
      case AstKind::kCompare: {
        Expr result;
        Expr left = expr(*e.children[0]);
        for (size_t i = 0; i < e.ops.size(); ++i) {
          Expr right = expr(*e.children[i + 1]);
          const std::string& op = e.ops[i];
          BinaryOp bop = binary_op_for(op);
          Expr cmp = binary_op(bop, left, right, e.span);
          result = result ? binary_op(BinaryOp::kAnd, result, cmp, e.span) : cmp;
          left = right;
        }
        return result;
      }
      case AstKind::kBoolOp: {
        BinaryOp bop = binary_op_for(e.name);
        Expr result = expr(*e.children[0]);
        for (size_t i = 1; i < e.children.size(); ++i)
          result = binary_op(bop, result, expr(*e.children[i]), e.span);
        return result;
      }
      case AstKind::kIfExp: {
        Expr body = expr(*e.children[0]);
        Expr test = expr(*e.children[1]);
        Expr orelse = expr(*e.children[2]);
        return guarded(e.span, [&] { return select(test, body, orelse, e.span); });
      }
    }
    fail(e.span, "unsupported expression");
  }

  Expr int_literal(const AstExpr& e) {
    const std::string& s = e.name;
    bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (!hex && s.size() > 1 && s[0] == '0' && s.find_first_not_of('0') != std::string::npos)
      fail(e.span, "integer literal with a leading zero", "write it without leading zeros");
    int64_t v = 0;
    const char* begin = s.data() + (hex ? 2 : 0);
    auto [ptr, ec] = std::from_chars(begin, s.data() + s.size(), v, hex ? 16 : 10);
    if (ec != std::errc() || ptr != s.data() + s.size())
      fail(e.span, "integer literal '" + s + "' does not fit in int64");
    return with_span(make_int(v, fits_int32(v) ? DataType::Int32() : DataType::Int64()), e.span);
  }

  Expr name_expr(const AstExpr& e) {
    const Binding* b = lookup(e.name);
    if (!b) {
      auto moved = out_of_scope_.find(e.name);
      if (moved != out_of_scope_.end())
        fail(e.span, "name '" + e.name + "' is not defined here",
             "it was bound inside a nested block at line " + std::to_string(moved->second.line) +
                 " and is only visible there; bind it before the block or use T.alloc_var");
      fail(e.span, "name '" + e.name + "' is not defined",
           e.name == "T" ? "add `import tilelang.language as T` at the top of the file"
                         : "define it as a module constant, a parameter, a loop variable or an "
                           "assignment before this line");
    }
    switch (b->kind) {
      case Binding::kConst:
        return with_span(b->value, e.span);
      case Binding::kVar:
        return b->value;
      case Binding::kVarBuffer:
        return guarded(e.span, [&] { return load(b->buffer, {make_int(0)}, e.span); });
      case Binding::kBuffer:
        fail(e.span, "buffer '" + e.name + "' is used as a value",
             "index it, e.g. " + e.name + "[i, j], or pass it to a tile operation");
      case Binding::kString:
        fail(e.span, "'" + e.name + "' is the dtype string \"" + b->text + "\", not a number",
             "dtypes go where a dtype is expected, e.g. T.cast(x, " + e.name + ")");
      case Binding::kModule:
        fail(e.span, "module '" + e.name + "' is not a value",
             "call one of its functions, e.g. T.exp(x)");
    }
    fail(e.span, "unsupported name");
  }

  Expr call_expr(const AstExpr& e) {
    std::string fn;
    if (e.base->kind == AstKind::kName) {
      const std::string& name = e.base->name;
      if (name == "max" || name == "min" || name == "abs") {
        fn = name;
      } else if (!lookup(name)) {
        if (name == "range")
          fail(e.span, "range(...) is only allowed as the iterable of a for loop", kSupportedLoops);
        if (name == "float" || name == "int" || name == "bool")
          fail(e.span, "Python's " + name + "() is not supported",
               "use T.cast(x, dtype) or T.float32(x)");
        fail(e.base->span, "function '" + name + "' is not defined", kSupportedExprCalls);
      } else {
        fail(e.base->span, "'" + name + "' is not a function", kSupportedExprCalls);
      }
    } else if (e.base->kind == AstKind::kAttribute) {
      fn = language_function(*e.base);
      if (fn.empty()) fail_not_language(*e.base);
    } else {
      fail(e.span, "only T.* functions can be called", kSupportedExprCalls);
    }
    const std::string qualified = "T." + fn;
    auto args = [&](size_t count) {
      no_keywords(e, qualified);
      if (e.children.size() != count)
        fail(e.span, qualified + " takes " + std::to_string(count) + " argument(s), got " +
                         std::to_string(e.children.size()));
      std::vector<Expr> out;
      for (const auto& c : e.children) out.push_back(expr(*c));
      return out;
    };
    if (is_math_intrinsic(fn)) {
      static const std::map<std::string, size_t> arity = {
          {"pow", 2}, {"fma", 3}, {"max", 2}, {"min", 2}};
      auto it = arity.find(fn);
      std::vector<Expr> values = args(it == arity.end() ? 1 : it->second);
      return fold(guarded(e.span, [&] { return call(fn, values, e.span); }), e.span);
    }
    if (fn == "call_extern") {
      // T.call_extern("float32", "name", args...): the printed form of an extern call.
      no_keywords(e, qualified);
      if (e.children.size() < 2 || e.children[1]->kind != AstKind::kString)
        fail(e.span, "T.call_extern takes a dtype, the function name as a string and its arguments",
             "e.g. T.call_extern(\"float32\", \"my_function\", x)");
      DataType t = dtype_arg(*e.children[0]);
      std::vector<Expr> values;
      for (size_t i = 2; i < e.children.size(); ++i) values.push_back(expr(*e.children[i]));
      return guarded(e.span, [&] { return call_extern(t, e.children[1]->name, values, e.span); });
    }
    if (fn == "tvm_storage_sync") {
      // T.tvm_storage_sync("shared"): the printed form of a barrier.
      no_keywords(e, qualified);
      std::optional<StorageScope> scope;
      if (e.children.size() == 1 && e.children[0]->kind == AstKind::kString)
        scope = parse_storage_scope(e.children[0]->name);
      if (!scope)
        fail(e.span, "T.tvm_storage_sync takes the scope it orders as a string",
             "write T.evaluate(T.tvm_storage_sync(\"shared\")) or (\"global\")");
      return guarded(e.span, [&] { return barrier(*scope, e.span); });
    }
    if (fn == "if_then_else") {
      auto v = args(3);
      return guarded(e.span, [&] { return select(v[0], v[1], v[2], e.span); });
    }
    if (fn == "ceildiv") {
      auto v = args(2);
      Expr sum = binary_op(BinaryOp::kAdd, v[0], v[1], e.span);
      Expr less = binary_op(BinaryOp::kSub, sum, make_int(1), e.span);
      return binary_op(BinaryOp::kFloorDiv, less, v[1], e.span);
    }
    if (fn == "cast") {
      auto a = bind_args(e, qualified, {"value", "dtype"}, 2);
      Expr v = expr(*a[0]);
      DataType t = dtype_arg(*a[1]);
      return guarded(e.span, [&] { return cast(t, v, e.span); });
    }
    if (fn == "infinity") {
      auto a = bind_args(e, qualified, {"dtype"}, 1);
      DataType t = dtype_arg(*a[0]);
      return with_span(guarded(a[0]->span, [&] { return infinity(t); }), e.span);
    }
    if (auto t = DataType::parse(fn)) {
      auto v = args(1);
      if (auto* i = v[0].as<IntImmNode>()) {
        if (t->is_float()) return with_span(make_float(double(i->value), *t), e.span);
        if (t->is_bool()) return with_span(make_bool(i->value != 0), e.span);
        return with_span(make_int(i->value, *t), e.span);
      }
      if (auto* f = v[0].as<FloatImmNode>()) return with_span(make_const(*t, f->value), e.span);
      return guarded(e.span, [&] { return cast(*t, v[0], e.span); });
    }
    static const std::set<std::string> statements = {
        "copy",       "fill",       "clear",         "gemm",          "reduce_sum",
        "reduce_max", "reduce_min", "reduce_abssum", "reduce_absmax", "evaluate"};
    if (statements.count(fn))
      fail(e.span, qualified + " is a statement, not a value", "call it on its own line");
    if (fn.rfind("alloc_", 0) == 0)
      fail(e.span, qualified + " must be assigned to a name", "write buf = " + qualified + "(...)");
    if (fn == "Parallel" || fn == "serial" || fn == "Pipelined" || fn == "vectorized" ||
        fn == "unroll" || fn == "thread_binding")
      fail(e.span, qualified + " is only allowed as the iterable of a for loop", kSupportedLoops);
    if (fn == "symbolic" || fn == "dynamic")
      fail(e.span, qualified + " is only allowed at module level",
           "write M = T.symbolic(\"M\") at the top");
    fail(e.base->span, "unknown function " + qualified, kSupportedExprCalls);
  }

  // ---------------------------------------------------------------- statements
  Stmt block(const AstBlock& stmts, Span span) {
    scopes_.emplace_back();
    BlockAccumulator acc;
    for (const auto& s : stmts) statement(*s, acc);
    for (const auto& [name, binding] : scopes_.back()) {
      Span at = binding.kind == Binding::kVar ? binding.value->span
                : binding.buffer              ? binding.buffer->span
                                              : Span{};
      out_of_scope_[name] = at;
    }
    scopes_.pop_back();
    return acc.finish(span);
  }

  void statement(const AstStmt& s, BlockAccumulator& acc) {
    switch (s.kind) {
      case AstStmtKind::kPass:
        return;
      case AstStmtKind::kExpr:
        return expression_statement(s, acc);
      case AstStmtKind::kAssign:
        return assignment(s, acc);
      case AstStmtKind::kAugAssign:
        return aug_assignment(s, acc);
      case AstStmtKind::kFor:
        return acc.add(for_statement(s));
      case AstStmtKind::kIf:
        return acc.add(if_statement(s));
      case AstStmtKind::kWith:
        return acc.add(kernel_statement(s));
      case AstStmtKind::kFunctionDef:
        fail(s.span, "nested functions are not supported",
             "define every @T.prim_func at module level");
      case AstStmtKind::kImport:
        fail(s.span, "imports belong at module level");
    }
  }

  void expression_statement(const AstStmt& s, BlockAccumulator& acc) {
    const AstExpr& e = *s.value;
    if (e.kind == AstKind::kString) return;  // docstring
    std::string fn = e.kind == AstKind::kCall && e.base->kind == AstKind::kAttribute
                         ? language_function(*e.base)
                         : "";
    const std::string q = "T." + fn;
    if (fn == "copy") {
      auto a = bind_args(e, q, {"src", "dst"}, 2);
      TileRegion src = region_arg(*a[0], q), dst = region_arg(*a[1], q);
      return acc.add(copy(src, dst, s.span));
    }
    if (fn == "fill" || fn == "clear") {
      auto a =
          fn == "fill" ? bind_args(e, q, {"buffer", "value"}, 2) : bind_args(e, q, {"buffer"}, 1);
      TileRegion dst = region_arg(*a[0], q);
      DataType t = dst.buffer->dtype;
      Expr value = fn == "clear" ? make_zero(t) : expr(*a[1]);
      value = guarded(a[fn == "fill" ? 1 : 0]->span, [&] { return cast(t, value); });
      return acc.add(fill(dst, value, s.span));
    }
    if (fn == "gemm") {
      auto a = bind_args(e, q, {"A", "B", "C", "transpose_A", "transpose_B", "clear_accum"}, 3);
      auto n = std::make_shared<GemmNode>();
      n->span = s.span;
      n->a = region_arg(*a[0], q);
      n->b = region_arg(*a[1], q);
      n->c = region_arg(*a[2], q);
      n->transpose_a = a[3] && bool_arg(*a[3], "transpose_A");
      n->transpose_b = a[4] && bool_arg(*a[4], "transpose_B");
      n->clear_accum = a[5] && bool_arg(*a[5], "clear_accum");
      return acc.add(Stmt(n));
    }
    static const std::map<std::string, ReduceKind> reduces = {
        {"reduce_sum", ReduceKind::kSum},
        {"reduce_max", ReduceKind::kMax},
        {"reduce_min", ReduceKind::kMin},
        {"reduce_abssum", ReduceKind::kAbsSum},
        {"reduce_absmax", ReduceKind::kAbsMax}};
    if (auto it = reduces.find(fn); it != reduces.end()) {
      auto a = bind_args(e, q, {"buffer", "out", "dim", "clear"}, 2);
      auto n = std::make_shared<ReduceNode>();
      n->span = s.span;
      n->reduce_kind = it->second;
      for (int k = 0; k < 2; ++k) {
        if (a[k]->kind != AstKind::kName)
          fail(a[k]->span, q + " operands must be whole buffers",
               "reduce a whole fragment or shared buffer; copy a region into one first");
      }
      n->src = buffer_name(*a[0], q);
      n->dst = buffer_name(*a[1], q);
      int64_t dim = a[2] ? int_arg(*a[2], "dim") : -1;
      int ndim = n->src->ndim();
      if (dim < -ndim || dim >= ndim)
        fail(a[2] ? a[2]->span : e.span,
             "dim " + std::to_string(dim) + " is out of range for the " + std::to_string(ndim) +
                 "-dimensional buffer '" + n->src->name + "'",
             "use a dim in [" + std::to_string(-ndim) + ", " + std::to_string(ndim - 1) + "]");
      n->dim = int(dim < 0 ? dim + ndim : dim);
      n->clear = a[3] ? bool_arg(*a[3], "clear") : true;
      return acc.add(Stmt(n));
    }
    if (fn == "evaluate") {
      auto a = bind_args(e, q, {"value"}, 1);
      return acc.add(evaluate(expr(*a[0]), s.span));
    }
    if (e.kind == AstKind::kCall) {
      if (fn.empty() && e.base->kind == AstKind::kAttribute) fail_not_language(*e.base);
      if (fn.empty()) fail(e.span, "unsupported call statement", kSupportedStatementCalls);
      if (fn.rfind("alloc_", 0) == 0 || fn == "Kernel" || fn == "Parallel" || fn == "serial" ||
          fn == "Pipelined" || fn == "if_then_else" || is_math_intrinsic(fn) || fn == "cast" ||
          fn == "ceildiv" || DataType::parse(fn))
        fail(e.span, q + " is not a statement", kSupportedStatementCalls);
      fail(e.base->span, "unknown function " + q, kSupportedStatementCalls);
    }
    fail(e.span, "this expression statement has no effect", kSupportedStatementCalls);
  }

  void assignment(const AstStmt& s, BlockAccumulator& acc) {
    const AstExpr& target = *s.target;
    const AstExpr& value = *s.value;
    if (target.kind == AstKind::kSubscript)
      return acc.add(element_store(target, expr(value), s.span));
    if (target.kind != AstKind::kName)
      fail(target.span, "unsupported assignment target",
           "assign one name (x = ...) or one element (A[i, j] = ...) per statement");
    const std::string& name = target.name;
    std::string fn = value.kind == AstKind::kCall && value.base->kind == AstKind::kAttribute
                         ? language_function(*value.base)
                         : "";
    if (fn == "alloc_shared" || fn == "alloc_fragment" || fn == "alloc_local") {
      auto a = bind_args(value, "T." + fn, {"shape", "dtype"}, 2);
      std::vector<Expr> shape = shape_arg(*a[0], false);
      DataType t = dtype_arg(*a[1]);
      StorageScope scope = fn == "alloc_shared"     ? StorageScope::kShared
                           : fn == "alloc_fragment" ? StorageScope::kFragment
                                                    : StorageScope::kLocal;
      Buffer buffer = make_buffer(name, shape, t, scope, target.span);
      bind_local(name, {Binding::kBuffer, {}, "", buffer}, target.span);
      return acc.open_allocate(buffer, std::nullopt, s.span);
    }
    if (fn == "alloc_var") {
      auto a = bind_args(value, "T.alloc_var", {"dtype", "init"}, 1);
      DataType t = dtype_arg(*a[0]);
      std::optional<Expr> init;
      if (a[1]) init = expr(*a[1]);
      Buffer buffer = make_buffer(name, {make_int(1)}, t, StorageScope::kVar, target.span);
      bind_local(name, {Binding::kVarBuffer, {}, "", buffer}, target.span);
      return guarded(s.span, [&] { acc.open_allocate(buffer, init, s.span); });
    }
    if (fn.rfind("alloc_", 0) == 0 && !fn.empty())
      fail(value.base->span, "unknown allocation T." + fn,
           "supported: T.alloc_shared, T.alloc_fragment, T.alloc_local, T.alloc_var");
    Expr v = expr(value);
    if (const Binding* b = lookup(name); b && b->kind == Binding::kVarBuffer)
      return acc.add(guarded(s.span, [&] { return store(b->buffer, {make_int(0)}, v, s.span); }));
    Var var = make_var(name, v.dtype(), target.span);
    bind_local(name, {Binding::kVar, var, "", {}}, target.span);
    acc.open_let(var, v, s.span);
  }

  // The buffer and lowered indices of the element `A[i, j]` that is read or
  // (is_store) assigned; the messages say which of the two was attempted.
  ElementAccess element_access(const AstExpr& e, bool is_store) {
    if (e.base->kind != AstKind::kName) {
      if (is_store) fail(e.span, "only buffer elements can be assigned", "write A[i, j] = value");
      fail(e.span, "only buffers can be subscripted", "write A[i, j] with A a buffer");
    }
    const Binding* b = lookup(e.base->name);
    if (!b) fail(e.base->span, "name '" + e.base->name + "' is not defined");
    if (b->kind != Binding::kBuffer && b->kind != Binding::kVarBuffer) {
      fail(e.span,
           "'" + e.base->name +
               (is_store ? "' is not a buffer" : "' is not a buffer and cannot be subscripted"));
    }
    std::vector<Expr> indices;
    for (const auto& c : e.children) {
      if (c->kind == AstKind::kSlice && is_store) {
        fail(
            c->span, "slice assignment is not supported",
            "use T.fill(A[i:i + 4, j], value) or T.copy(src, A[i:i + 4, j]), or a T.Parallel loop");
      }
      if (c->kind == AstKind::kSlice) {
        fail(c->span, "a slice is not a value",
             "slices are tile operands (T.copy(A[i:i + 4, j], B)); read one element as A[i, j]");
      }
      indices.push_back(expr(*c));
    }
    return {b->buffer, std::move(indices)};
  }

  Stmt element_store(const AstExpr& target, Expr value, Span span) {
    ElementAccess access = element_access(target, /*is_store=*/true);
    return guarded(span, [&] { return store(access.buffer, access.indices, value, span); });
  }

  void aug_assignment(const AstStmt& s, BlockAccumulator& acc) {
    const std::string& op = s.op;
    BinaryOp bop = binary_op_for(op);
    const AstExpr& target = *s.target;
    if (target.kind == AstKind::kName) {
      const Binding* b = lookup(target.name);
      if (!b) fail(target.span, "name '" + target.name + "' is not defined");
      if (b->kind != Binding::kVarBuffer)
        fail(target.span,
             "cannot modify '" + target.name + "': names bound in a kernel are immutable",
             "declare it with " + target.name + " = T.alloc_var(dtype) to make it mutable");
      Expr current =
          guarded(target.span, [&] { return load(b->buffer, {make_int(0)}, target.span); });
      Expr v = binary_op(bop, current, expr(*s.value), s.span);
      return acc.add(guarded(s.span, [&] { return store(b->buffer, {make_int(0)}, v, s.span); }));
    }
    if (target.kind != AstKind::kSubscript)
      fail(target.span, "unsupported augmented assignment target", "write x += v or A[i, j] += v");
    Expr current = expr(target);
    auto* load_node = current.as<LoadNode>();
    Expr v = binary_op(bop, current, expr(*s.value), s.span);
    acc.add(
        guarded(s.span, [&] { return store(load_node->buffer, load_node->indices, v, s.span); }));
  }

  Stmt if_statement(const AstStmt& s) {
    Expr cond = expr(*s.value);
    Stmt then_case = block(s.body, s.span);
    Stmt else_case = s.orelse.empty() ? Stmt() : block(s.orelse, s.orelse[0]->span);
    return guarded(s.span, [&] { return if_then_else(cond, then_case, else_case, s.span); });
  }

  std::vector<const AstExpr*> loop_targets(const AstExpr& target) {
    std::vector<const AstExpr*> names;
    if (target.kind == AstKind::kTuple) {
      for (const auto& c : target.children) names.push_back(c.get());
    } else {
      names.push_back(&target);
    }
    return names;
  }

  Stmt for_statement(const AstStmt& s) {
    const AstExpr& iter = *s.value;
    std::string fn;
    if (iter.kind == AstKind::kCall && iter.base->kind == AstKind::kName &&
        iter.base->name == "range" && !lookup("range")) {
      fn = "range";
    } else if (iter.kind == AstKind::kCall && iter.base->kind == AstKind::kAttribute) {
      fn = language_function(*iter.base);
    }
    static const std::set<std::string> loops = {
        "range", "Parallel", "serial", "Pipelined", "vectorized", "unroll", "thread_binding"};
    if (!loops.count(fn)) fail(iter.span, "unsupported loop iterable", kSupportedLoops);
    const std::string q = fn == "range" ? "range" : "T." + fn;
    auto targets = loop_targets(*s.target);
    if (fn != "Parallel" && targets.size() != 1)
      fail(s.target->span, q + " binds one loop variable, not " + std::to_string(targets.size()),
           "use `for i, j in T.Parallel(M, N)` for a loop nest");

    if (fn == "Parallel") {
      no_keywords(iter, q);
      if (iter.children.empty()) fail(iter.span, "T.Parallel needs at least one extent");
      if (iter.children.size() != targets.size())
        fail(s.target->span, "T.Parallel has " + std::to_string(iter.children.size()) +
                                 " extent(s) but the loop binds " + std::to_string(targets.size()) +
                                 " variable(s)");
      std::vector<Expr> extents;
      for (const auto& c : iter.children) extents.push_back(expr(*c));
      return loop_nest(s, targets, extents, ForKind::kParallel, 1, 0, "");
    }

    Expr begin = make_int(0), end;
    int64_t step = 1;
    int num_stages = 0;
    std::string thread;
    ForKind kind = ForKind::kSerial;
    if (fn == "range") {
      no_keywords(iter, q);
      size_t n = iter.children.size();
      if (n < 1 || n > 3) fail(iter.span, "range takes 1 to 3 arguments, got " + std::to_string(n));
      if (n == 1) {
        end = expr(*iter.children[0]);
      } else {
        begin = expr(*iter.children[0]);
        end = expr(*iter.children[1]);
      }
      if (n == 3) {
        step = int_arg(*iter.children[2], "step");
        if (step == 0) fail(iter.children[2]->span, "range step must not be zero");
      }
    } else {
      std::vector<std::string> names = {"start", "stop"};
      if (fn == "Pipelined") names.push_back("num_stages");
      if (fn == "thread_binding") names.push_back("thread");
      auto a = bind_args(iter, q, names, 1);
      if (a[1]) {
        begin = expr(*a[0]);
        end = expr(*a[1]);
      } else {
        end = expr(*a[0]);
      }
      if (fn == "Pipelined") {
        kind = ForKind::kPipelined;
        if (a[2]) {
          int64_t stages = int_arg(*a[2], "num_stages");
          if (stages < 0 || stages > 64) fail(a[2]->span, "num_stages must be between 0 and 64");
          num_stages = int(stages);
        }
      } else if (fn == "vectorized") {
        kind = ForKind::kVectorized;
      } else if (fn == "unroll") {
        kind = ForKind::kUnrolled;
      } else if (fn == "thread_binding") {
        kind = ForKind::kThreadBinding;
        if (!a[2] || a[2]->kind != AstKind::kString)
          fail(iter.span, "T.thread_binding needs thread=\"threadIdx.x\" (or .y/.z)");
        thread = a[2]->name;
      }
    }
    for (const Expr& bound : {begin, end})
      if (!bound.dtype().is_integer())
        fail(iter.span, "loop bounds must be integers, not " + bound.dtype().str());
    return loop_nest(s, targets, {end}, kind, step, num_stages, thread, begin);
  }

  Stmt loop_nest(const AstStmt& s, const std::vector<const AstExpr*>& targets,
                 const std::vector<Expr>& extents, ForKind kind, int64_t step, int num_stages,
                 const std::string& thread, Expr begin = make_int(0)) {
    scopes_.emplace_back();
    std::vector<Var> vars;
    for (const AstExpr* t : targets) {
      Var v = make_var(t->name, DataType::Int32(), t->span);
      bind_local(t->name, {Binding::kVar, v, "", {}}, t->span);
      vars.push_back(v);
    }
    Stmt body = block(s.body, s.span);
    scopes_.pop_back();
    for (size_t k = vars.size(); k-- > 0;) {
      Expr lo = vars.size() == 1 ? begin : make_int(0);
      body = guarded(s.span,
                     [&] { return for_loop(vars[k], lo, extents[k], body, kind, step, s.span); });
      if (num_stages || !thread.empty()) {
        auto n = copy_node(body.as<ForNode>());
        n->num_stages = num_stages;
        n->thread_tag = thread;
        body = Stmt(n);
      }
    }
    return body;
  }

  Stmt kernel_statement(const AstStmt& s) {
    const AstExpr& ctx = *s.value;
    if (ctx.kind != AstKind::kCall || ctx.base->kind != AstKind::kAttribute ||
        language_function(*ctx.base) != "Kernel")
      fail(ctx.span, "unsupported 'with' statement",
           "the only context is `with T.Kernel(...) as (bx, by):`");
    if (in_kernel_)
      fail(s.span, "T.Kernel cannot be nested", "a function launches one kernel grid at a time");
    if (ctx.children.empty() || ctx.children.size() > 3)
      fail(ctx.span,
           "T.Kernel takes 1 to 3 grid extents, got " + std::to_string(ctx.children.size()));
    auto n = std::make_shared<KernelNode>();
    n->span = s.span;
    for (const auto& c : ctx.children) {
      Expr g = expr(*c);
      if (!g.dtype().is_integer())
        fail(c->span, "grid extents must be integers, not " + g.dtype().str());
      n->grid.push_back(g);
    }
    n->threads = {128};
    for (const auto& kw : ctx.keywords) {
      if (kw.name != "threads")
        fail(kw.span, "T.Kernel got an unexpected keyword argument '" + kw.name + "'",
             "accepted: grid extents, then threads=N or threads=(x, y, z)");
      n->threads.clear();
      std::vector<const AstExpr*> items;
      if (kw.value->kind == AstKind::kTuple || kw.value->kind == AstKind::kList) {
        for (const auto& c : kw.value->children) items.push_back(c.get());
      } else {
        items.push_back(kw.value.get());
      }
      if (items.empty() || items.size() > 3) fail(kw.span, "threads takes 1 to 3 extents");
      for (const AstExpr* item : items) {
        int64_t t = int_arg(*item, "threads");
        if (t <= 0 || t > 4096)
          fail(item->span, "threads must be between 1 and 4096, got " + std::to_string(t));
        n->threads.push_back(t);
      }
    }
    if (!s.target)
      fail(ctx.span, "T.Kernel must name its block indices",
           "write `with T.Kernel(...) as (bx, by):`");
    auto targets = loop_targets(*s.target);
    if (targets.size() != n->grid.size())
      fail(s.target->span, "T.Kernel has " + std::to_string(n->grid.size()) +
                               " grid extent(s) but binds " + std::to_string(targets.size()) +
                               " block index name(s)");
    scopes_.emplace_back();
    for (const AstExpr* t : targets) {
      Var v = make_var(t->name, DataType::Int32(), t->span);
      bind_local(t->name, {Binding::kVar, v, "", {}}, t->span);
      n->block_vars.push_back(v);
    }
    in_kernel_ = true;
    n->body = block(s.body, s.span);
    in_kernel_ = false;
    scopes_.pop_back();
    return Stmt(n);
  }

  std::string_view source_;
  const ParseOptions& options_;
  std::vector<std::unordered_map<std::string, Binding>> scopes_;
  std::vector<std::string> constant_order_;
  std::set<std::string> used_defines_;
  std::unordered_map<std::string, Span> out_of_scope_;
  bool in_kernel_ = false;
};

}  // namespace

IRModule lower_module(const AstModule& module, std::string_view source,
                      const ParseOptions& options) {
  return Lowering(source, options).run(module);
}

}  // namespace tilec::ir::frontend
