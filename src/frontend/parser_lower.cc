#include "frontend_lowering.h"

#include "block_swizzle.h"
#include "hardware_only.h"
#include "python_constants.h"
#include "tilec/ir/block_accumulator.h"
#include "tilec/ir/builder.h"
#include "tilec/ir/const_fold.h"
#include "tilec/ir/float8.h"
#include "tilec/ir/gemm_policy.h"
#include "tilec/ir/index_type.h"
#include "tilec/ir/param_default.h"
#include "tilec/ir/pipeline_schedule.h"
#include "tilec/ir/structural.h"
#include "tilec/ir/tensor.h"
#include "tilec/ir/thread_binding.h"
#include "tilec/ir/visitor.h"
#include "tilec/ir/warp_shuffle.h"
#include "view_tile_ops.h"

#include <cctype>
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
    "T.reduce_min, T.reduce_abssum, T.reduce_absmax, T.reduce, T.evaluate";
constexpr const char* kSupportedExprCalls =
    "supported T.* functions in expressions: exp, exp2, log, log2, sqrt, rsqrt, tanh, sigmoid, "
    "abs, pow, floor, ceil, max, min, fma, if_then_else, cast, ceildiv, infinity, call_extern, "
    "tvm_storage_sync and typed constants such as T.float16(1.0) or T.int32(n)";

struct Binding {
  // kTuple: a tuple or list of constants (a factory's `block = (64, 64)`); kFunction: a
  // module or factory level `def` that is not a kernel (a helper returning a value, or a
  // @T.macro expanded where it is called); kNone: Python's None.
  // kKernel: the kernel a nested factory call produced (`kernel_func(block_M, ...)` in a
  // factory), held in `kernel` until the factory returns it.
  // kView: T.reshape(A, shape) / T.view(A, shape): `buffer` is A (the root buffer when A
  // is itself a view) and `items` hold the view's shape; element accesses are remapped
  // through the row-major linear index, so the view aliases A's data.
  enum Kind {
    kConst,
    kString,
    kVar,
    kBuffer,
    kVarBuffer,
    kModule,
    kTuple,
    kFunction,
    kNone,
    kView,
    kKernel
  };
  Binding(Kind k = kNone, Expr v = {}, std::string t = {}, Buffer b = {})
      : kind(k), value(std::move(v)), text(std::move(t)), buffer(std::move(b)) {}
  Kind kind;
  Expr value;                  // kConst: an immediate; kVar: the Var
  std::string text;            // kString: the string; kModule: "tilelang" or "tilelang.language"
  Buffer buffer;               // kBuffer / kVarBuffer
  std::vector<Binding> items;  // kTuple
  const AstStmt* function = nullptr;  // kFunction
  bool macro = false;                 // kFunction decorated with @T.macro
  PrimFunc kernel;                    // kKernel
};

// Warp-level exchanges between the threads of a block (shuffles, votes, warp reductions).
bool is_warp_primitive(const std::string& fn) {
  static const std::set<std::string> names = {"tvm_thread_allreduce",
                                              "tvm_warp_shuffle",
                                              "tvm_warp_shuffle_down",
                                              "tvm_warp_shuffle_up",
                                              "tvm_warp_activemask",
                                              "warp_reduce_sum",
                                              "warp_reduce_max",
                                              "warp_reduce_min",
                                              "warp_reduce_bitand",
                                              "warp_reduce_bitor",
                                              "any_sync",
                                              "all_sync",
                                              "ballot_sync",
                                              "activemask",
                                              "ballot"};
  return names.count(fn) || fn.rfind("shfl", 0) == 0 || fn.rfind("__shfl", 0) == 0;
}

// Scheduling and register-allocation hints with no meaning for the result of a kernel:
// accepted and dropped on every target (docs/semantics.md, "Hints").
bool is_result_neutral_hint(const std::string& fn) {
  static const std::set<std::string> names = {"annotate_layout",    "func_attr",
                                              "annotate_padding",   "annotate_l2_hit_ratio",
                                              "no_set_max_nreg",    "disable_warp_group_reg_alloc",
                                              "annotate_safe_value"};
  return names.count(fn) != 0;
}

// The element A[i, j] of a subscript that is read or assigned.
struct ElementAccess {
  Buffer buffer;
  std::vector<Expr> indices;
};

// The BinaryOp a Python operator token spells ("+", "//", "<=", "and"): the inverse of
// to_string(BinaryOp), so the parser and the printer spell operators alike.
BinaryOp binary_op_for(std::string_view token) {
  for (int i = 0; i <= int(BinaryOp::kShr); ++i) {
    if (token == to_string(BinaryOp(i))) return BinaryOp(i);
  }
  throw IRError("unknown binary operator '" + std::string(token) + "'");
}

// Positional and keyword arguments of a call matched to parameter names.
struct BoundArgs {
  std::vector<const AstExpr*> values;  // by parameter index; null when absent
  const AstExpr* operator[](size_t i) const { return values[i]; }
};

// Whether integer dtype `t` holds v exactly.
bool integer_fits(int64_t v, DataType t) {
  if (!t.is_integer()) return false;
  if (t.is_uint()) return v >= 0 && (t.bits >= 63 || v < (int64_t(1) << t.bits));
  return t.bits >= 64 || (v >= -(int64_t(1) << (t.bits - 1)) && v < (int64_t(1) << (t.bits - 1)));
}

bool fits_int32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

class Lowering {
 public:
  Lowering(std::string_view source, const ParseOptions& options, const std::string& entry)
      : source_(source), options_(options), entry_(entry) {
    scopes_.emplace_back();
  }

  IRModule run(const AstModule& module) {
    // Kernels (@T.prim_func, eager @tilelang.jit) and factories, in file order; only the
    // ones --entry picks are lowered (all kernels when there is no factory and no entry).
    struct Entry {
      const AstStmt* def;
      bool factory;
      bool skipped = false;  // a kernel or factory the syntax parser could not read
    };
    std::vector<Entry> entries;
    for (const auto& stmt : module.body) {
      switch (stmt->kind) {
        case AstStmtKind::kImport:
          import_statement(*stmt);
          break;
        case AstStmtKind::kAssign:
        case AstStmtKind::kAnnAssign:
          module_constant(*stmt);
          break;
        case AstStmtKind::kFunctionDef: {
          for (const auto& e : entries)
            if (e.def->name == stmt->name)
              fail(stmt->span, "function '" + stmt->name + "' is defined twice",
                   "give each kernel and factory a distinct name");
          DefKind kind = def_kind(*stmt);
          if (kind == DefKind::kHelper || kind == DefKind::kMacro) {
            Binding b(Binding::kFunction);
            b.function = stmt.get();
            b.macro = kind == DefKind::kMacro;
            scopes_[0][stmt->name] = b;
            if (!first_helper_) first_helper_ = stmt.get();
          } else {
            entries.push_back({stmt.get(), kind == DefKind::kFactory});
          }
          break;
        }
        case AstStmtKind::kOpaque:
          if (stmt->kernel_like && !stmt->name.empty()) {
            entries.push_back({stmt.get(), false, true});
            break;
          }
          for (const auto& name : stmt->bound_names) bind_skipped(name, stmt->error);
          break;
        case AstStmtKind::kIf:
          if (is_main_guard(*stmt)) break;  // `if __name__ == "__main__":` test driver
          [[fallthrough]];
        case AstStmtKind::kFor:
        case AstStmtKind::kWith:
          skip_module_block(*stmt);
          break;
        case AstStmtKind::kPass:
        case AstStmtKind::kExpr:  // docstrings, and calls run for their effect in Python
        default:
          break;
      }
    }
    if (entries.empty() && first_helper_)
      fail(first_helper_->span,
           "function '" + first_helper_->name + "' is not decorated with @T.prim_func",
           "kernels are @T.prim_func functions, factories returning one or @tilelang.jit "
           "functions; the file defines none");
    std::vector<const Entry*> chosen;
    bool any_factory = false;
    for (const auto& e : entries) any_factory = any_factory || e.factory;
    auto choices = [&] {
      std::string names;
      for (const auto& e : entries)
        names += (names.empty() ? "" : ", ") + e.def->name + (e.factory ? " (factory)" : "");
      return names.empty() ? std::string("(none)") : names;
    };
    if (!entry_.empty()) {
      for (const auto& e : entries)
        if (e.def->name == entry_) chosen.push_back(&e);
      if (chosen.empty())
        fail({}, "--entry " + entry_ + ": the file defines no kernel or factory '" + entry_ + "'",
             "choices: " + choices());
    } else if (any_factory && entries.size() > 1) {
      fail({}, "the file defines several kernels or factories; pick one with --entry NAME",
           "choices: " + choices());
    } else {
      for (const auto& e : entries) chosen.push_back(&e);
    }
    std::vector<PrimFunc> functions;
    for (const Entry* e : chosen) {
      if (e->skipped) throw SourceError(*e->def->error);
      PrimFunc fn = e->factory ? factory(*e->def) : function(*e->def, e->def->name);
      functions.push_back(with_pipeline_schedules(with_declared_outputs(fn, *e->def)));
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
  const Binding* find_binding(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
  }
  // A use of `name`: its binding, or null when unbound. A name bound only by a
  // module-level statement tilec skipped raises that statement's error, since the
  // kernel needs what Python would have computed there.
  const Binding* lookup(const std::string& name) const {
    if (const Binding* b = find_binding(name)) return b;
    auto skipped = opaque_names_.find(name);
    if (skipped != opaque_names_.end()) raise_skipped(*skipped->second, name);
    return nullptr;
  }
  [[noreturn]] void raise_skipped(const SourceError& why, const std::string& name) const {
    std::string hint = why.hint();
    hint += std::string(hint.empty() ? "" : "; ") + "kernel code uses '" + name +
            "', which this statement binds; tilec skips Python outside the kernel subset, "
            "so compute '" +
            name + "' from constants or pass it with -D " + name + "=VALUE";
    throw SourceError(why.filename(), why.span(), why.message(), hint, why.source_line());
  }
  void bind_skipped(const std::string& name, std::shared_ptr<const SourceError> why) {
    scopes_[0].erase(name);
    opaque_names_[name] = std::move(why);
  }
  // A loop variable may shadow a loop variable of an enclosing loop for the inner loop's
  // body (TVM script's scoped loop frames: `for i in T.serial(n): ... for i, j in
  // T.Parallel(...)`); the outer one is visible again after the inner loop.
  void bind_loop_var(const std::string& name, Binding binding, Span span) {
    const Binding* old = find_binding(name);
    if (old && old->kind == Binding::kVar && lookup_is_local(name) && !scopes_.back().count(name)) {
      scopes_.back()[name] = std::move(binding);
      return;
    }
    bind_local(name, std::move(binding), span);
  }
  void bind_local(const std::string& name, Binding binding, Span span) {
    if (const Binding* old = find_binding(name)) {
      if (old->kind == Binding::kModule)
        fail(span, "'" + name + "' names an imported module and cannot be rebound",
             "pick another name");
      // A macro's names are its own, as a Python function's: `bx =
      // T.get_block_binding(0)` in a macro shadows the caller's `bx`.
      if (!macro_bases_.empty() && !bound_from(name, macro_bases_.back())) {
        scopes_.back()[name] = std::move(binding);
        return;
      }
      if (lookup_is_local(name))
        fail(span, "cannot rebind '" + name + "': names bound in a kernel are immutable",
             "use a new name, or declare a mutable scalar with " + name +
                 " = T.alloc_var(dtype) and assign to it");
      fail(span, "'" + name + "' is a module constant and cannot be rebound inside a function",
           "use a new name, or override the constant with -D " + name + "=VALUE");
    }
    scopes_.back()[name] = std::move(binding);
  }
  // Whether `name` is bound in scopes_[first] or a later (inner) scope.
  bool bound_from(const std::string& name, size_t first) const {
    for (size_t i = first; i < scopes_.size(); ++i)
      if (scopes_[i].count(name)) return true;
    return false;
  }
  bool lookup_is_local(const std::string& name) const { return bound_from(name, 1); }
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
      if (b && b->kind == Binding::kModule && b->text == "tilelang.language")
        return canonical_language_name(e.name);
      return "";
    }
    if (base.kind == AstKind::kAttribute && base.name == "language" &&
        base.base->kind == AstKind::kName) {
      const Binding* b = lookup(base.base->name);
      if (b && b->kind == Binding::kModule && b->text == "tilelang")
        return canonical_language_name(e.name);
    }
    return "";
  }
  // TileLang's two implementations of T.gemm (T.gemm_v1, the original, and T.gemm_v2)
  // take the same arguments and compute the same product.
  static std::string canonical_language_name(const std::string& name) {
    return name == "gemm_v1" || name == "gemm_v2" ? "gemm" : name;
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
  // A module-level if/for/with other than the __main__ guard is not run; the names it
  // assigns raise, when kernel code uses them, an error saying so.
  void skip_module_block(const AstStmt& s) {
    auto why = std::make_shared<const SourceError>(make_source_error(
        options_.filename, source_, s.span, "tilec does not run module-level control flow",
        "define constants at module level without if/for/with, or in a factory"));
    std::vector<const AstStmt*> pending = {&s};
    while (!pending.empty()) {
      const AstStmt* st = pending.back();
      pending.pop_back();
      std::vector<const AstExpr*> targets;
      if (st->target) targets.push_back(st->target.get());
      for (const auto& t : st->more_targets) targets.push_back(t.get());
      while (!targets.empty()) {
        const AstExpr* t = targets.back();
        targets.pop_back();
        if (t->kind == AstKind::kName) bind_skipped(t->name, why);
        for (const auto& c : t->children)
          if (t->kind == AstKind::kTuple || t->kind == AstKind::kList) targets.push_back(c.get());
      }
      if (st->kind == AstStmtKind::kFunctionDef) bind_skipped(st->name, why);
      for (const auto& b : st->body) pending.push_back(b.get());
      for (const auto& b : st->orelse) pending.push_back(b.get());
    }
  }

  void import_statement(const AstStmt& s) {
    std::string full = s.imported.empty() ? s.module : s.module + "." + s.imported;
    // tilelang.cuda.language (and the other targets' namespaces) re-export tilelang.language;
    // their target-only extras fail where they are used, by name.
    if (full.rfind("tilelang.", 0) == 0 && full.size() > 18 &&
        full.compare(full.size() - 9, 9, ".language") == 0 && full.find('.', 9) == full.size() - 9)
      full = "tilelang.language";
    if (full == "tilelang.tvm") full = "tvm";  // `from tilelang import tvm`: TileLang's TVM
    // Other tilelang modules (autotuner, carver, ...) only decorate or drive kernels:
    // their names are bound, opaque, and `from tilelang.x import *` binds nothing.
    bool tilelang_module = full.rfind("tilelang.", 0) == 0 && full != "tilelang.language";
    if (tilelang_module && s.imported == "*") return;
    // Python's math module and TVM's DataType compute factory constants
    // (python_constants.h); `import tvm` binds tvm for tvm.DataType(...).
    if (full == "math" || full == "tvm" || full == "tvm.DataType" || full == "tilelang.DataType") {
      std::string name = !s.alias.empty() ? s.alias : !s.imported.empty() ? s.imported : full;
      scopes_[0][name] =
          Binding{Binding::kModule, {}, full == "tilelang.DataType" ? "tvm.DataType" : full, {}};
      return;
    }
    if (full != "tilelang" && full != "tilelang.language" && !tilelang_module) {
      // torch, argparse, ... serve the Python around the kernels: the import is kept
      // as a name that fails where kernel code uses it.
      std::string bound = !s.alias.empty()      ? s.alias
                          : !s.imported.empty() ? s.imported
                                                : s.module.substr(0, s.module.find('.'));
      if (bound == "*") return;
      bind_skipped(bound,
                   std::make_shared<const SourceError>(make_source_error(
                       options_.filename, source_, s.span, "unsupported import of '" + full + "'",
                       "kernel code may use only tilelang: `import tilelang` and "
                       "`import tilelang.language as T` (or `from tilelang import "
                       "language as T`)")));
      return;
    }
    std::string name = s.alias;
    if (name.empty()) {
      if (!s.imported.empty())
        name = s.imported;
      else if (full == "tilelang" || tilelang_module)  // `import tilelang.x` binds tilelang
        name = full = "tilelang";
      else
        fail(s.span, "`import tilelang.language` needs an alias",
             "write `import tilelang.language as T`");
    }
    scopes_[0][name] = Binding{Binding::kModule, {}, full, {}};
  }

  // A module-level assignment: a constant when it evaluates as one; otherwise (Python
  // the evaluator does not run: torch tensors, argparse results...) its names are
  // skipped and raise the evaluation error where kernel code uses them. A -D for one
  // of them cannot be honoured, so it raises at once.
  void module_constant(const AstStmt& s) {
    try {
      module_constant_value(s);
    } catch (const SourceError& e) {
      std::vector<std::string> names;
      std::vector<const AstExpr*> targets = {s.target.get()};
      for (const auto& t : s.more_targets) targets.push_back(t.get());
      for (const AstExpr* t : targets) {
        if (t->kind == AstKind::kName) names.push_back(t->name);
        if (t->kind == AstKind::kTuple || t->kind == AstKind::kList)
          for (const auto& c : t->children)
            if (c->kind == AstKind::kName) names.push_back(c->name);
      }
      for (const auto& n : names)
        if (options_.defines.count(n)) throw;
      auto why = std::make_shared<const SourceError>(e);
      for (const auto& n : names) bind_skipped(n, why);
    }
  }

  void module_constant_value(const AstStmt& s) {
    if (!s.value) return;  // `x: int` declares nothing
    if (!s.more_targets.empty())
      fail(s.more_targets[0]->span, "module constants are assigned one per line",
           "write M = 1024 and N = 1024 on two lines");
    if (s.target->kind == AstKind::kTuple || s.target->kind == AstKind::kList) {
      assign_constant(*s.target, *s.value);
      for (const auto& c : s.target->children) constant_order_.push_back(c->name);
      return;
    }
    if (s.target->kind != AstKind::kName)
      fail(s.target->span, "module-level assignments must bind a name",
           "write one constant per line, e.g. `M = 1024`");
    const std::string& name = s.target->name;
    if (const Binding* old = find_binding(name); old && old->kind == Binding::kModule)
      fail(s.target->span, "'" + name + "' names an imported module and cannot be rebound");
    Binding value = const_value(*s.value, name);
    if (value.kind == Binding::kConst && !value.value.as<IntImmNode>() &&
        !value.value.as<FloatImmNode>())
      fail(start_of(*s.value), "module constant '" + name + "' is not a constant number",
           "module constants are numbers (M = 1024), arithmetic of earlier number constants, "
           "dtype strings (dtype = \"float16\") or symbolic dims (M = T.symbolic(\"M\"))");
    auto define = options_.defines.find(name);
    if (define != options_.defines.end()) {
      value = define_value(name, define->second, value);
      used_defines_.insert(name);
    }
    if (std::find(constant_order_.begin(), constant_order_.end(), name) == constant_order_.end())
      constant_order_.push_back(name);
    scopes_[0][name] = std::move(value);
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
    // How to write an integer, for "expected an integer": 1e11 is a float in Python, so the
    // same number in digits, else the form.
    auto integer_form = [&] {
      if (is_float && d == std::floor(d) && std::fabs(d) < 9.2e18)
        return "; " + text + " is a float in Python: write the integer in digits, -D " + name +
               "=" + std::to_string(static_cast<int64_t>(d));
      return "; write an integer in decimal digits, e.g. -D " + name +
             "=4096 (no fraction, exponent or separators)";
    };
    std::string trimmed = text;
    while (!trimmed.empty() && trimmed.front() == ' ') trimmed.erase(0, 1);
    if (!trimmed.empty() && (trimmed.front() == '[' || trimmed.front() == '(') &&
        (original.kind == Binding::kNone || original.kind == Binding::kTuple)) {
      // -D order=[0, 1, 2] / -D block=(64, 64): a list or tuple of constants.
      size_t pos = 0;
      Binding t = define_sequence(name, trimmed, pos);
      while (pos < trimmed.size() && trimmed[pos] == ' ') ++pos;
      if (pos != trimmed.size()) bad("unexpected text after the closing bracket");
      return t;
    }
    switch (original.kind) {
      case Binding::kNone:  // a parameter without a default: the text says what it is
        if (is_int)
          return {Binding::kConst,
                  make_int(i, fits_int32(i) ? DataType::Int32() : DataType::Int64()),
                  "",
                  {}};
        if (is_float) return {Binding::kConst, make_float(d), "", {}};
        if (text == "True" || text == "False")
          return {Binding::kConst, make_bool(text == "True"), "", {}};
        return define_value(name, text, Binding(Binding::kString));
      case Binding::kTuple:
      case Binding::kFunction:
      case Binding::kModule:
      case Binding::kBuffer:
      case Binding::kVarBuffer:
      case Binding::kView:
      case Binding::kKernel:
        bad("'" + name + "' is not a number or a dtype string");
        [[fallthrough]];  // bad() throws
      case Binding::kString: {
        std::string s = text;
        if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
          s = s.substr(1, s.size() - 2);
        return {Binding::kString, {}, s, {}};
      }
      case Binding::kVar:
        if (!is_int || i <= 0)
          bad("'" + name + "' is a symbolic dimension; expected a positive integer" +
              (is_int ? std::string() : integer_form()));
        return {Binding::kConst,
                make_int(i, fits_int32(i) ? DataType::Int32() : DataType::Int64()),
                "",
                {}};
      default: {
        DataType t = original.value.dtype();
        if (t.is_bool()) {
          if (text != "True" && text != "False" && text != "1" && text != "0")
            bad("'" + name + "' is a flag; expected True or False");
          return {Binding::kConst, make_bool(text == "True" || text == "1"), "", {}};
        }
        if (t.is_float()) {
          if (!is_float) bad("'" + name + "' is a float constant; expected a number");
          return {Binding::kConst, make_float(d, t), "", {}};
        }
        if (!is_int)
          bad("'" + name + "' is an integer constant; expected an integer" + integer_form());
        return {Binding::kConst,
                make_int(i, fits_int32(i) ? DataType::Int32() : DataType::Int64()),
                "",
                {}};
      }
    }
  }

  // The list or tuple starting at text[pos] ('[' or '('), items read as define_value
  // reads a value without a default; nested lists are items too. pos ends after it.
  Binding define_sequence(const std::string& name, const std::string& text, size_t& pos) {
    char close = text[pos] == '[' ? ']' : ')';
    Binding t(Binding::kTuple);
    if (close == ']') t.text = "list";
    ++pos;
    auto skip = [&] {
      while (pos < text.size() && text[pos] == ' ') ++pos;
    };
    skip();
    while (pos < text.size() && text[pos] != close) {
      if (text[pos] == '[' || text[pos] == '(') {
        t.items.push_back(define_sequence(name, text, pos));
      } else {
        size_t start = pos;
        while (pos < text.size() && text[pos] != ',' && text[pos] != close) ++pos;
        std::string item = text.substr(start, pos - start);
        while (!item.empty() && item.back() == ' ') item.pop_back();
        if (item.empty())
          fail({}, "-D " + name + "=" + text + ": an empty item",
               "write -D " + name + "=[0, 1, 2]");
        t.items.push_back(item == "None" ? Binding(Binding::kNone)
                                         : define_value(name, item, Binding(Binding::kNone)));
      }
      skip();
      if (pos < text.size() && text[pos] == ',') ++pos;
      skip();
    }
    if (pos >= text.size())
      fail({}, "-D " + name + "=" + text + ": the list is not closed with '" + close + "'",
           "write -D " + name + "=[0, 1, 2]");
    ++pos;
    return t;
  }

  void check_unused_defines() const {
    for (const auto& [name, value] : options_.defines) {
      if (!used_defines_.count(name) && opaque_names_.count(name) && !find_binding(name))
        raise_skipped(*opaque_names_.at(name), name);
      if (!used_defines_.count(name))
        fail({}, "-D " + name + "=" + value + ": the file defines no constant '" + name + "'",
             "constants it defines: " + module_constant_names());
    }
  }

  // ---------------------------------------------------------------- declared outputs
  // `@tilelang.jit(out_idx=...)` on a kernel or factory names the parameters the caller
  // gets back instead of passing (negative indices count from the end, as in TileLang);
  // an eager jit function's T.empty outputs are its trailing parameters. Recorded as
  // the function attribute kOutputIndicesAttr, e.g. "2" or "1,2", in ascending order.
  PrimFunc with_declared_outputs(const PrimFunc& fn, const AstStmt& def) {
    std::set<int64_t> indices;
    const int64_t n = int64_t(fn->params.size());
    for (const auto& d : def.decorators) {
      if (d->kind != AstKind::kCall || !is_jit_decorator(*d->base)) continue;
      for (const auto& kw : d->keywords) {
        if (kw.name != "out_idx") continue;
        Binding v = const_value(*kw.value, "out_idx");
        if (v.kind == Binding::kNone) continue;
        std::vector<Binding> items = v.kind == Binding::kTuple ? v.items : std::vector{v};
        for (const Binding& item : items) {
          auto* ci = item.kind == Binding::kConst ? item.value.as<IntImmNode>() : nullptr;
          if (!ci) fail(kw.value->span, "out_idx must be an integer or a list of integers");
          int64_t i = ci->value < 0 ? ci->value + n : ci->value;
          if (i < 0 || i >= n || !fn->params[size_t(i)].is_buffer())
            fail(kw.value->span,
                 "out_idx " + std::to_string(ci->value) + " names no tensor parameter of '" +
                     fn->name + "'",
                 "it has " + std::to_string(n) +
                     " parameters; out_idx counts them from 0 "
                     "(or from the end with -1)");
          indices.insert(i);
        }
      }
    }
    if (auto it = eager_outputs_.find(fn->name); it != eager_outputs_.end())
      for (int64_t i = n - it->second; i < n; ++i) indices.insert(i);
    if (indices.empty()) return fn;
    std::string text;
    for (int64_t i : indices) text += (text.empty() ? "" : ",") + std::to_string(i);
    return with_attr(fn, kOutputIndicesAttr, text);
  }

  // ---------------------------------------------------------------- functions
  // ---------------------------------------------------------------- kinds of `def`
  enum class DefKind { kKernel, kFactory, kEagerJit, kMacro, kHelper };

  // What a `def` is, from its decorators and body: @T.prim_func -> a kernel; @T.macro ->
  // a macro; a function defining a @T.prim_func inside -> a factory; @tilelang.jit on a
  // function whose body is the kernel itself -> eager jit; anything else -> a helper.
  DefKind def_kind(const AstStmt& s) {
    bool prim_func = false, macro = false, jit = false;
    for (const auto& d : s.decorators) {
      const AstExpr& target = d->kind == AstKind::kCall ? *d->base : *d;
      std::string fn = language_function(target);
      if (fn == "prim_func" || fn == "macro") {
        if (d->kind == AstKind::kCall) {
          if (!d->children.empty())
            fail(d->children[0]->span, "@T." + fn + " takes only keyword arguments");
          for (const auto& kw : d->keywords)
            if (kw.name != "private")
              fail(kw.span, "@T." + fn + " got an unexpected keyword argument '" + kw.name + "'",
                   "accepted: private=True");
        }
        (fn == "prim_func" ? prim_func : macro) = true;
        continue;
      }
      if (is_jit_decorator(target)) {
        jit = true;
        continue;
      }
      if (target.kind == AstKind::kAttribute) {
        const AstExpr* root = &target;
        while (root->base) root = root->base.get();
        if (root->kind == AstKind::kName && !lookup(root->name)) fail_not_language(target);
      }
      fail(d->span, "unsupported decorator",
           "kernels are @T.prim_func functions, factories returning one or @tilelang.jit "
           "functions; macros are @T.macro functions");
    }
    if (prim_func) return DefKind::kKernel;
    if (macro) return DefKind::kMacro;
    if (defines_kernel(s.body)) return DefKind::kFactory;
    if (jit) return DefKind::kEagerJit;
    return DefKind::kHelper;
  }
  // tilelang.jit, tilelang.lazy_jit, tilelang.autotune (and their imported names), and
  // tilelang.transform.simplify_prim_func, which only simplifies the kernel it returns.
  bool is_jit_decorator(const AstExpr& target) const {
    static const std::set<std::string> names = {"jit", "lazy_jit", "autotune",
                                                "simplify_prim_func"};
    if (target.kind == AstKind::kAttribute && target.base->kind == AstKind::kName) {
      const Binding* b = lookup(target.base->name);
      return b && b->kind == Binding::kModule && b->text == "tilelang" && names.count(target.name);
    }
    if (target.kind == AstKind::kName) {
      const Binding* b = lookup(target.name);
      if (!b) return names.count(target.name) > 0;  // from tilelang import * / autotuner import *
      return b->kind == Binding::kModule && b->text.rfind("tilelang.", 0) == 0 &&
             names.count(b->text.substr(b->text.rfind('.') + 1));
    }
    return false;
  }
  // Factories may import the language themselves (`import tilelang.language as T`
  // inside the body, before the nested @T.prim_func): those aliases count too.
  bool defines_kernel(const AstBlock& body, std::set<std::string> local_aliases = {}) {
    for (const auto& st : body)
      if (st->kind == AstStmtKind::kImport && !st->alias.empty() &&
          (st->module + (st->imported.empty() ? "" : "." + st->imported)) == "tilelang.language")
        local_aliases.insert(st->alias);
    for (const auto& st : body) {
      if (st->kind == AstStmtKind::kFunctionDef) {
        for (const auto& d : st->decorators) {
          const AstExpr& target = d->kind == AstKind::kCall ? *d->base : *d;
          if (language_function(target) == "prim_func") return true;
          if (target.kind == AstKind::kAttribute && target.name == "prim_func" &&
              target.base->kind == AstKind::kName && local_aliases.count(target.base->name))
            return true;
        }
        // A factory of factories: `def kernel_func(block_M, ...)` defining the kernel
        // inside the outer factory, which calls or returns it.
        if (defines_kernel(st->body, local_aliases)) return true;
      }
      if (st->kind == AstStmtKind::kIf &&
          (defines_kernel(st->body, local_aliases) || defines_kernel(st->orelse, local_aliases)))
        return true;
    }
    return false;
  }
  static bool is_main_guard(const AstStmt& s) {
    const AstExpr& c = *s.value;
    return c.kind == AstKind::kCompare && c.children.size() == 2 &&
           c.children[0]->kind == AstKind::kName && c.children[0]->name == "__name__";
  }

  // ---------------------------------------------------------------- functions
  PrimFunc function(const AstStmt& s, const std::string& name) {
    if (def_kind(s) == DefKind::kEagerJit) return eager_jit(s, name);
    scopes_.emplace_back();
    out_of_scope_.clear();
    no_star_parameters(s);
    std::vector<Param> params;
    AttrMap attrs;  // the scalar parameters' defaults
    for (const auto& p : s.params) {
      if (scopes_.back().count(p.name)) fail(p.span, "duplicate parameter '" + p.name + "'");
      if (!p.annotation)
        fail(p.span, "parameter '" + p.name + "' has no annotation",
             "annotate it: " + p.name + ": T.Tensor((M, N), \"float32\") or " + p.name +
                 ": T.int32");
      params.push_back(parameter(p));
      const Param& param = params.back();
      if (p.default_value) {
        if (param.is_buffer())
          fail(p.default_value->span, "tensor parameter '" + p.name + "' takes no default",
               "only scalar parameters have defaults (n: T.int32 = 4); put sizes with defaults "
               "on a factory: def matmul(M, N, K, block_M=128): ... returning the @T.prim_func");
        attrs[param_default_attr(p.name)] = scalar_default(*p.default_value, param.var);
      }
      if (param.is_buffer())
        bind_local(p.name, {Binding::kBuffer, {}, "", param.buffer}, p.span);
      else
        bind_local(p.name, {Binding::kVar, param.var, "", {}}, p.span);
    }
    Stmt body =
        has_top_level_launch(s.body) ? implicit_kernel(s.body, s.span) : block(s.body, s.span);
    scopes_.pop_back();
    require_kernel(body, s, name);
    return make_prim_func(name, std::move(params), std::move(body), std::move(attrs), s.span);
  }

  // The default of scalar parameter `var` (param_default.h): a constant of its dtype.
  AttrValue scalar_default(const AstExpr& e, const Var& var) {
    Binding b = const_value(e, var.name());
    DataType t = var.dtype();
    const auto* i = b.kind == Binding::kConst ? b.value.as<IntImmNode>() : nullptr;
    const auto* f = b.kind == Binding::kConst ? b.value.as<FloatImmNode>() : nullptr;
    if (t.is_float() && (i || f)) return i ? double(i->value) : f->value;
    if (i && (t.is_bool() || integer_fits(i->value, t)))
      return t.is_bool() ? int64_t(i->value != 0) : i->value;
    fail(e.span,
         "the default of '" + var.name() + ": T." + t.str() + "' must be " +
             (t.is_int() ? "an " : "a ") + t.str() + " constant",
         t.is_float() ? "e.g. " + var.name() + ": T." + t.str() + " = 0.5"
                      : "e.g. " + var.name() + ": T." + t.str() + " = 4");
  }

  // Later stages compile functions that launch one grid, or several one after another
  // (TileLang's separate device launches): each T.Kernel at the function's top level.
  void require_kernel(const Stmt& body, const AstStmt& s, const std::string& name) {
    int kernels = count_kernels(body);
    if (kernels == 1) return;
    if (kernels == 0)
      fail(s.span, "function '" + name + "' has no T.Kernel",
           "a kernel's body is `with T.Kernel(grid..., threads=N) as (bx, by):` holding its "
           "work");
    if (!kernels_at_top_level(body))
      fail(s.span,
           "function '" + name + "' launches " + std::to_string(kernels) +
               " T.Kernel grids, but not all at its top level",
           "several grids run one after another when each `with T.Kernel(...)` is a statement "
           "of the function itself (plain assignments may separate them), not inside a loop "
           "or an if");
  }
  static bool kernels_at_top_level(const Stmt& st) {
    if (!st || st.kind() == StmtKind::kKernel) return true;
    if (const auto* let_node = st.as<LetNode>()) return kernels_at_top_level(let_node->body);
    if (const auto* q = st.as<SeqNode>()) {
      for (const auto& c : q->stmts)
        if (!kernels_at_top_level(c)) return false;
      return true;
    }
    return false;  // the host side runs launches only
  }
  // The T.Kernel statements of `st`, not counting any inside a kernel's body.
  static int count_kernels(const Stmt& st) {
    struct Count : StmtVisitor {
      int n = 0;
      void visit_kernel(const KernelNode*) override { ++n; }
    } count;
    count.visit(st);
    return count.n;
  }

  // ---------------------------------------------------------------- factories
  // Where the parameters of a factory or helper take their values, first to last:
  // kDefinesFirst (the entry factory): -D NAME=VALUE, the default. kCallFirst (a factory
  // nested in the entry, called or returned by it): the call's arguments, -D, the default;
  // a None default of an @autotune/@jit wrapper counts as none (the autotuner would
  // choose it). kCallOnly (a helper): the call's arguments, the default.
  enum class ParamSource { kDefinesFirst, kCallFirst, kCallOnly };

  // Binds the parameters of a factory or helper from `source`; a missing one is an error
  // naming it.
  void bind_parameters(const AstStmt& s, const std::vector<Binding>& args,
                       const std::map<std::string, Binding>& kwargs, ParamSource source,
                       const std::set<std::string>& skip = {}) {
    no_star_parameters(s);
    const bool defines = source != ParamSource::kCallOnly;
    const bool tuned = source == ParamSource::kCallFirst && !s.decorators.empty();
    for (size_t i = 0; i < s.params.size(); ++i) {
      const AstParam& p = s.params[i];
      if (skip.count(p.name)) continue;
      Binding value;
      auto define = options_.defines.find(p.name);
      auto kw = kwargs.find(p.name);
      bool from_call = source != ParamSource::kDefinesFirst;
      bool none_default = p.default_value && p.default_value->kind == AstKind::kNone;
      if (from_call && i < args.size()) {
        value = args[i];
      } else if (from_call && kw != kwargs.end()) {
        value = kw->second;
      } else if (defines && define != options_.defines.end()) {
        Binding like = p.default_value ? const_value(*p.default_value, p.name) : Binding();
        value = define_value(p.name, define->second, like);
        used_defines_.insert(p.name);
      } else if (p.default_value && !(tuned && none_default)) {
        value = const_value(*p.default_value, p.name);
      } else if (defines) {
        fail(p.span, "factory '" + s.name + "' needs a value for parameter '" + p.name + "'",
             none_default ? "pass -D " + p.name +
                                "=VALUE (its default None is for the "
                                "autotuner to fill)"
                          : "pass -D " + p.name + "=VALUE (it has no default)");
      } else {
        fail(p.span, "'" + s.name + "' is called without a value for parameter '" + p.name + "'");
      }
      scopes_.back()[p.name] = std::move(value);
    }
  }

  // The kernel a factory's `return` names: `main`, `a if cond else b` (a constant
  // condition), or the first argument of a call such as tilelang.compile(main, ...).
  std::string returned_kernel(const AstExpr& e) {
    if (e.kind == AstKind::kName) return e.name;
    if (e.kind == AstKind::kIfExp) {
      const AstExpr* taken = taken_side(e);
      return taken ? returned_kernel(*taken) : "";
    }
    if (e.kind == AstKind::kCall && !e.children.empty()) return returned_kernel(*e.children[0]);
    return "";
  }

  // The side of `a if c else b` that its constant condition picks; null when c is not a
  // constant.
  const AstExpr* taken_side(const AstExpr& if_exp) {
    Binding test = const_value(*if_exp.children[1], "condition");
    const auto* t = test.kind == Binding::kConst ? test.value.as<IntImmNode>() : nullptr;
    return t ? if_exp.children[t->value ? 0 : 2].get() : nullptr;
  }

  PrimFunc factory(const AstStmt& s) {
    factory_kernels_.clear();
    factory_first_kernel_.clear();
    entry_factory_ = s.name;
    scopes_.emplace_back();
    bind_parameters(s, {}, {}, ParamSource::kDefinesFirst);
    std::optional<PrimFunc> kernel;
    run_constant_block(s.body, s.name, &kernel);
    scopes_.pop_back();
    if (!kernel)
      fail(s.span, "factory '" + s.name + "' defines no @T.prim_func on the path taken",
           "define the kernel inside the factory (def main(...) decorated @T.prim_func) and "
           "return it");
    return *kernel;
  }

  // Whether two sizes are the same expression. structural_equal maps free variables onto
  // each other (M == K would hold), so two variables must be the same name.
  static bool same_size(const Expr& a, const Expr& b) {
    auto *va = a.as<VarNode>(), *vb = b.as<VarNode>();
    if (va || vb) return va && vb && va->name == vb->name;
    return structural_equal(a, b);
  }

  // `assert cond` outside a kernel: cond must be a constant, and true. As in TileLang
  // (TVM's `bool(a == b)`), `a == b` / `a != b` of symbolic sizes is decided by whether
  // the two sides are the same expression: `M, N = A.shape; assert M == M_` in a macro.
  void constant_assert(const AstStmt& st, const std::string& owner) {
    Binding c = const_value(*st.value, "assert");
    std::optional<bool> holds;
    if (c.kind == Binding::kConst) {
      if (auto* ci = c.value.as<IntImmNode>()) holds = ci->value != 0;
      auto* cmp = c.value.as<BinaryNode>();
      if (cmp && (cmp->op == BinaryOp::kEQ || cmp->op == BinaryOp::kNE))
        holds = same_size(cmp->a, cmp->b) == (cmp->op == BinaryOp::kEQ);
    }
    if (!holds)
      fail(st.value->span, "the condition of an assert in '" + owner + "' must be a constant",
           "asserts outside a kernel check sizes; compare symbolic sizes only with == or !=");
    if (!*holds)
      fail(st.span, "assertion failed in '" + owner + "' for these parameters",
           "choose -D values that satisfy it");
  }

  // A `raise` reached while evaluating a factory, helper or jit function with these
  // parameters (one in an untaken branch is never reached): the parameters are
  // unsupported, so the error names the exception and its literal message.
  [[noreturn]] void constant_raise(const AstStmt& st, const std::string& owner) {
    std::string what = "an exception";
    if (const AstExpr* e = st.value.get()) {
      const AstExpr* type = e->kind == AstKind::kCall ? e->base.get() : e;
      if (type->kind == AstKind::kName || type->kind == AstKind::kAttribute) what = type->name;
      if (e->kind == AstKind::kCall && !e->children.empty() &&
          e->children[0]->kind == AstKind::kString)
        what += " (\"" + e->children[0]->name + "\")";
    }
    fail(st.span, "'" + owner + "' raised " + what + " for these parameters",
         "the raise is reached with the -D values and defaults given; choose values its "
         "conditions accept");
  }

  // The branch an `if` outside a kernel (in a factory, helper or eager jit body) takes;
  // its condition must be a constant there.
  const AstBlock& constant_branch(const AstStmt& st, const std::string& owner) {
    Expr c = expr(*st.value);
    auto* ci = c.as<IntImmNode>();
    if (!ci)
      fail(st.value->span, "the condition of an if in '" + owner + "' must be a constant",
           "branch on parameters, sizes, dtypes and flags here; branch on run-time values "
           "inside the T.Kernel");
    return ci->value ? st.body : st.orelse;
  }

  // Runs the constant-computing statements of a factory or helper body. A nested
  // @T.prim_func becomes *kernel (named after the factory); returns the value of a
  // `return` (kNone binding when it returns nothing).
  std::optional<Binding> run_constant_block(const AstBlock& body, const std::string& owner,
                                            std::optional<PrimFunc>* kernel) {
    for (const auto& st : body) {
      switch (st->kind) {
        case AstStmtKind::kPass:
        case AstStmtKind::kImport:
          if (st->kind == AstStmtKind::kImport) import_statement(*st);
          break;
        case AstStmtKind::kExpr:
          if (st->value->kind == AstKind::kString) break;
          fail(st->span,
               "only constant assignments, if/else, kernels and return are allowed "
               "in '" +
                   owner + "'",
               "tilec evaluates a factory's constants, not arbitrary Python");
        case AstStmtKind::kAssign:
        case AstStmtKind::kAnnAssign:
          if (!st->value) break;  // `x: int` declares nothing
          if (const AstExpr* tuned = autotuner_kernel(*st->value);
              tuned && st->target->kind == AstKind::kName) {
            // `autotuner = AutoTuner.from_kernel(kernel=kernel, ...)...`: the name stands
            // for the kernel function, whose tuned parameters come from -D.
            if (const Binding* f = find_binding(tuned->name); f && f->kind == Binding::kFunction) {
              scopes_.back()[st->target->name] = *f;
              break;
            }
          }
          assign_constant(*st->target, *st->value);
          for (const auto& t : st->more_targets) assign_constant(*t, *st->value);
          break;
        case AstStmtKind::kAssert:
          constant_assert(*st, owner);
          break;
        case AstStmtKind::kRaise:
          constant_raise(*st, owner);  // [[noreturn]]
        case AstStmtKind::kIf:
          if (auto r = run_constant_block(constant_branch(*st, owner), owner, kernel)) return r;
          break;
        case AstStmtKind::kFunctionDef: {
          DefKind kind = def_kind(*st);
          if (kind == DefKind::kKernel) {
            if (!kernel)
              fail(st->span, "a @T.prim_func cannot be defined inside a helper function",
                   "define kernels at module level or inside a factory");
            // The first kernel is lowered here; later ones only when the factory returns
            // them (`return main_split if num_split > 1 else main_no_split`).
            factory_kernels_[st->name] = st.get();
            if (*kernel) break;
            *kernel = function(*st, entry_factory_);
            factory_first_kernel_ = st->name;
            break;
          }
          // A nested factory (`def kernel_func(block_M, ...)` defining the kernel) and an
          // @autotune/@jit wrapper returning its call are called like helpers and give
          // the kernel they make; an eager jit kernel (its body holds the T.Kernel) is
          // lowered only at module level.
          if (kind == DefKind::kEagerJit && !is_kernel_wrapper(*st))
            fail(st->span, "an eager @tilelang.jit kernel cannot be defined inside '" + owner + "'",
                 "define it at module level, or make the nested function a factory that "
                 "defines and returns a @T.prim_func");
          Binding b(Binding::kFunction);
          b.function = st.get();
          b.macro = kind == DefKind::kMacro;
          scopes_.back()[st->name] = b;
          break;
        }
        case AstStmtKind::kReturn:
          if (!st->value) return Binding(Binding::kNone);
          if (kernel) {  // returns the kernel (or a jit of it)
            std::string name = returned_kernel(*st->value);
            auto it = factory_kernels_.find(name);
            if (it != factory_kernels_.end()) {
              if (name != factory_first_kernel_) {
                *kernel = function(*it->second, entry_factory_);
                factory_first_kernel_ = name;
              }
            } else if (PrimFunc made = nested_kernel(*st->value)) {
              *kernel = made;
            }
            return Binding(Binding::kNone);
          }
          return const_value(*st->value, "return value");
        default:
          fail(st->span, "unsupported statement in '" + owner + "'",
               "factories and helpers compute constants with assignments, if/else and return; "
               "loops belong inside the kernel");
      }
    }
    return std::nullopt;
  }

  // `name = value` or `a, b = x, y` at module, factory or helper level.
  void assign_constant(const AstExpr& target, const AstExpr& value) {
    if (target.kind == AstKind::kName) {
      scopes_.back()[target.name] = const_value(value, target.name);
      return;
    }
    if (target.kind != AstKind::kTuple && target.kind != AstKind::kList)
      fail(target.span, "assign a name or a tuple of names", "e.g. block_M, block_N = 64, 64");
    Binding v = const_value(value, "tuple");
    if (v.kind != Binding::kTuple || v.items.size() != target.children.size())
      fail(value.span, "cannot unpack into " + std::to_string(target.children.size()) +
                           " names: the value is not a tuple of that length");
    for (size_t i = 0; i < target.children.size(); ++i) {
      if (target.children[i]->kind != AstKind::kName)
        fail(target.children[i]->span, "only names can be unpacked into");
      scopes_.back()[target.children[i]->name] = v.items[i];
    }
  }

  // The value of a constant expression: numbers, dtype strings, tuples and lists of
  // them, None, conditionals on constants and calls of helper functions.
  // `dtype == "float16"`, `in_dtype != accum_dtype`: a factory's comparison of strings is
  // decided here, as Python decides it (equal text; a T.float16-style dtype on either side
  // also equals the dtype string that names the same type). nullopt when no operand is a
  // string; a string ordered with <, > or compared with a number is an error.
  std::optional<bool> string_compare(const AstExpr& e) {
    auto text = [&](const AstExpr& x) -> std::optional<std::string> {
      if (x.kind == AstKind::kString) return x.name;
      if (x.kind == AstKind::kName) {
        const Binding* b = lookup(x.name);
        if (b && b->kind == Binding::kString) return b->text;
      }
      if (x.kind == AstKind::kAttribute) {
        std::string fn = language_function(x);
        if (!fn.empty() && DataType::parse(fn)) return fn;
      }
      return std::nullopt;
    };
    for (const auto& op : e.ops)  // membership and identity have their own rules
      if (op == "in" || op == "not in" || op == "is" || op == "is not") return std::nullopt;
    bool any = false;
    for (const auto& c : e.children) any |= text(*c).has_value();
    if (!any) return std::nullopt;
    bool result = true;
    for (size_t i = 0; i < e.ops.size(); ++i) {
      const AstExpr& l = *e.children[i];
      const AstExpr& r = *e.children[i + 1];
      const std::string& op = e.ops[i];
      if (op != "==" && op != "!=")
        fail(e.span, "strings can only be compared with == and != here, not '" + op + "'");
      auto a = text(l), b = text(r);
      if (!a || !b) {
        if (const_value(a ? r : l, "comparison").kind != Binding::kNone)
          fail((a ? r : l).span, "a string is compared with a value that is not a string",
               "compare dtypes with dtype strings, e.g. dtype == \"float16\"");
      }
      bool same = a && b && *a == *b;
      if (a && b && !same && (l.kind == AstKind::kAttribute || r.kind == AstKind::kAttribute)) {
        auto ta = DataType::parse(*a), tb = DataType::parse(*b);
        same = ta && tb && *ta == *tb;
      }
      result = result && (op == "==" ? same : !same);
    }
    return result;
  }

  // Python's truth value of a constant (None, "", (), 0 are false); nullopt for a
  // symbolic one.
  static std::optional<bool> truthiness(const Binding& b) {
    switch (b.kind) {
      case Binding::kNone:
        return false;
      case Binding::kString:
        return !b.text.empty();
      case Binding::kTuple:
        return !b.items.empty();
      case Binding::kConst:
        if (const auto* i = b.value.as<IntImmNode>()) return i->value != 0;
        if (const auto* f = b.value.as<FloatImmNode>()) return f->value != 0;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  Binding const_value(const AstExpr& e, const std::string& name) {
    switch (e.kind) {
      case AstKind::kString:
        return {Binding::kString, {}, e.name, {}};
      case AstKind::kNone:
        return Binding(Binding::kNone);
      case AstKind::kTuple:
      case AstKind::kList: {
        Binding t(Binding::kTuple);
        if (e.kind == AstKind::kList) t.text = "list";  // for isinstance(x, list)
        for (const auto& c : e.children) t.items.push_back(const_value(*c, name));
        return t;
      }
      case AstKind::kIfExp: {
        Binding test = const_value(*e.children[1], name);
        auto* ti = test.kind == Binding::kConst ? test.value.as<IntImmNode>() : nullptr;
        if (!ti) fail(e.children[1]->span, "the condition must be a constant here");
        return const_value(*e.children[ti->value ? 0 : 2], name);
      }
      case AstKind::kBoolOp: {
        // Python's `x or y` / `x and y` give the operand that decides
        // (`out_dtype = out_dtype or in_dtype`); a symbolic operand makes it the
        // logical operation of the kernel's expressions.
        Binding v = const_value(*e.children[0], name);
        for (size_t i = 1; i < e.children.size(); ++i) {
          std::optional<bool> truth = truthiness(v);
          if (!truth) break;
          if (*truth == (e.name == "or")) return v;
          v = const_value(*e.children[i], name);
          if (i + 1 == e.children.size()) return v;
        }
        break;
      }
      case AstKind::kCompare:
        if (e.ops[0] == "in" || e.ops[0] == "not in")
          return {Binding::kConst, membership(e), "", {}};
        if (auto same = string_compare(e)) return {Binding::kConst, make_bool(*same), "", {}};
        if (e.ops[0] == "is" || e.ops[0] == "is not") {
          Binding lb = const_value(*e.children[0], name);
          Binding rb = const_value(*e.children[1], name);
          bool left = lb.kind == Binding::kNone;
          bool right = rb.kind == Binding::kNone;
          auto flag = [](const Binding& b) -> std::optional<bool> {
            const auto* i = b.kind == Binding::kConst ? b.value.as<IntImmNode>() : nullptr;
            if (i && b.value.dtype().is_bool()) return i->value != 0;
            return std::nullopt;
          };
          bool same = left == right;
          if (!left && !right) {  // `flag is True` / `x is False`: the same bool object
            if (!(e.children[0]->kind == AstKind::kBool || e.children[1]->kind == AstKind::kBool))
              fail(e.span, "'is' compares with None, True or False only", "write `x is None`");
            same = flag(lb) && flag(rb) && *flag(lb) == *flag(rb);
          }
          return {Binding::kConst, make_bool(e.ops[0] == "is" ? same : !same), "", {}};
        }
        break;
      case AstKind::kName: {
        const Binding* b = lookup(e.name);
        if (b && b->kind != Binding::kVarBuffer && b->kind != Binding::kModule &&
            b->kind != Binding::kFunction)
          return *b;
        break;
      }
      case AstKind::kSubscript:
        if (e.base->kind == AstKind::kDict) return dict_item(e);
        if (e.base->kind == AstKind::kList || e.base->kind == AstKind::kTuple)
          return tuple_entry(const_value(*e.base, name), e);
        if (const Binding* t = tuple_binding(*e.base)) return tuple_entry(*t, e);
        break;
      case AstKind::kAttribute: {
        std::string fn = language_function(e);
        if (!fn.empty() && DataType::parse(fn)) return {Binding::kString, {}, fn, {}};
        if (Buffer buf = attribute_buffer(e, "dtype"))
          return {Binding::kString, {}, buf->dtype.str(), {}};
        if (Buffer buf = attribute_buffer(e, "shape")) {
          Binding t(Binding::kTuple);
          for (const auto& d : buf->shape) t.items.push_back({Binding::kConst, d, "", {}});
          return t;
        }
        break;
      }
      case AstKind::kCall: {
        std::string fn = e.base->kind == AstKind::kAttribute ? language_function(*e.base) : "";
        if (fn == "symbolic" || fn == "dynamic" || fn == "const" || is_tvm_te_var(*e.base))
          return symbolic(e, name);
        if (e.base->kind == AstKind::kName) {
          const Binding* b = lookup(e.base->name);
          if (b && b->kind == Binding::kFunction && !b->macro) return call_helper(e, *b);
        }
        break;
      }
      default:
        break;
    }
    Expr value = expr(e);
    return {Binding::kConst, value, "", {}};
  }

  // tvm.te.var, the symbolic size of TileLang's older examples (`import tvm` or
  // `from tilelang import tvm`).
  bool is_tvm_te_var(const AstExpr& f) const {
    if (f.kind != AstKind::kAttribute || f.name != "var" || f.base->kind != AstKind::kAttribute ||
        f.base->name != "te" || f.base->base->kind != AstKind::kName)
      return false;
    const Binding* b = lookup(f.base->base->name);
    return b && b->kind == Binding::kModule && b->text == "tvm";
  }

  // T.symbolic("M") / T.dynamic("M", dtype) / T.const("M, N"): symbolic dims (a tuple of
  // them for a list of names), or constants where -D gives their value.
  Binding symbolic(const AstExpr& e, const std::string& name) {
    std::string fn = language_function(*e.base);
    const std::string q = fn.empty() ? "tvm.te.var" : "T." + fn;  // tvm.te.var("m") is T.dynamic
    auto args = bind_args(e, q, {"name", "dtype"}, 1);
    if (args[0]->kind != AstKind::kString)
      fail(args[0]->span, q + " expects the dimension name as a string",
           "write " + name + " = " + q + "(\"" + name + "\")");
    DataType t = args[1] ? dtype_arg(*args[1]) : DataType::Int32();
    if (!t.is_int())
      fail(args[1]->span, "symbolic dimensions must have an integer dtype, not " + t.str());
    std::vector<std::string> names;
    std::string cur;
    // Names are separated by commas, whitespace or both, as TileLang splits them:
    // T.const("M, N"), T.const("M N K").
    for (char c : args[0]->name + ",") {
      if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
        if (!cur.empty()) names.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (names.empty()) fail(args[0]->span, q + " needs at least one name");
    Binding tuple(Binding::kTuple);
    for (const auto& n : names) {
      Binding b{Binding::kVar, make_var(n, t, e.span), "", {}};
      auto define = options_.defines.find(n);
      if (define != options_.defines.end()) {
        b = define_value(n, define->second, b);
        used_defines_.insert(n);
      }
      tuple.items.push_back(b);
    }
    return names.size() == 1 ? tuple.items[0] : tuple;
  }

  Binding call_helper(const AstExpr& call, const Binding& helper) {
    const AstStmt& def = *helper.function;
    no_star_parameters(def);
    std::vector<Binding> args;
    std::map<std::string, Binding> kwargs;
    for (const auto& c : call.children) args.push_back(const_value(*c, def.name));
    for (const auto& kw : call.keywords) kwargs[kw.name] = const_value(*kw.value, kw.name);
    if (args.size() > def.params.size())
      fail(call.span, "'" + def.name + "' takes " + std::to_string(def.params.size()) +
                          " argument(s), got " + std::to_string(args.size()));
    return call_function(def, args, kwargs, call.span);
  }

  // Runs helper `def` on bound arguments. A nested factory (one defining a @T.prim_func)
  // gives the kernel it returns as a kKernel binding, lowered with its own kernel
  // table; its parameters missing from the call come from -D, then defaults.
  // `returned_uncalled`: the factory returns `def` itself, so -D gives what its caller
  // would pass.
  Binding call_function(const AstStmt& def, const std::vector<Binding>& args,
                        const std::map<std::string, Binding>& kwargs, const Span& span,
                        bool returned_uncalled = false) {
    if (++helper_depth_ > 64) fail(span, "helper calls nested too deeply (limit 64)");
    const bool makes_kernel = def_kind(def) == DefKind::kFactory;
    scopes_.emplace_back();
    bind_parameters(def, args, kwargs,
                    makes_kernel || returned_uncalled || is_kernel_wrapper(def)
                        ? ParamSource::kCallFirst
                        : ParamSource::kCallOnly);
    std::optional<Binding> r;
    if (makes_kernel) {
      auto saved_kernels = std::move(factory_kernels_);
      auto saved_first = std::move(factory_first_kernel_);
      factory_kernels_.clear();
      factory_first_kernel_.clear();
      std::optional<PrimFunc> made;
      run_constant_block(def.body, def.name, &made);
      factory_kernels_ = std::move(saved_kernels);
      factory_first_kernel_ = std::move(saved_first);
      if (!made)
        fail(def.span, "factory '" + def.name + "' defines no @T.prim_func on the path taken",
             "define the kernel inside it (def main(...) decorated @T.prim_func) and return it");
      r = Binding(Binding::kKernel);
      r->kernel = *made;
    } else {
      r = run_constant_block(def.body, def.name, nullptr);
    }
    scopes_.pop_back();
    --helper_depth_;
    if (!r || r->kind == Binding::kNone)
      fail(span, "helper '" + def.name + "' returns no value",
           "helpers used in constants end with `return value`");
    // `@jit(out_idx=[3])` on the nested factory or wrapper declares the outputs.
    if (r->kind == Binding::kKernel) r->kernel = with_declared_outputs(r->kernel, def);
    return *r;
  }

  // An @autotune/@jit-decorated function nested in a factory that only returns a
  // nested factory's call (`def kernel(block_M=None, ...): return kernel_func(block_M,
  // ...)`): TileLang's autotuner entry point, called like a helper here.
  bool is_kernel_wrapper(const AstStmt& def) {
    if (def_kind(def) != DefKind::kEagerJit) return false;
    for (const auto& st : def.body)
      if (st->kind == AstStmtKind::kWith) return false;  // the T.Kernel itself: eager jit
    return true;
  }

  // The kernel a factory's `return` produces through a nested factory: `kernel_func(...)`,
  // a name bound to such a call's result, the nested function itself uncalled (`return
  // kernel`: its parameters come from -D or defaults, as TileLang's caller would pass
  // them), or either under a constant `a if c else b` or tilelang.compile(...). Null
  // when the value names none.
  PrimFunc nested_kernel(const AstExpr& e) {
    if (e.kind == AstKind::kIfExp) {
      const AstExpr* taken = taken_side(e);
      return taken ? nested_kernel(*taken) : nullptr;
    }
    if (e.kind == AstKind::kName) {
      const Binding* b = find_binding(e.name);
      if (b && b->kind == Binding::kKernel) return b->kernel;
      if (b && b->kind == Binding::kFunction && !b->macro) {
        Binding r = call_function(*b->function, {}, {}, e.span, /*returned_uncalled=*/true);
        return r.kind == Binding::kKernel ? r.kernel : nullptr;
      }
      return nullptr;
    }
    if (e.kind != AstKind::kCall) return nullptr;
    if (const AstExpr* tuned = autotuner_kernel(e)) return nested_kernel(*tuned);
    if (e.base->kind == AstKind::kName) {
      const Binding* b = find_binding(e.base->name);
      if (b && b->kind == Binding::kFunction && !b->macro) {
        Binding r = call_helper(e, *b);
        return r.kind == Binding::kKernel ? r.kernel : nullptr;
      }
    }
    return e.children.empty() ? nullptr : nested_kernel(*e.children[0]);
  }

  // TileLang's AutoTuner driver: `AutoTuner.from_kernel(kernel=k, configs=...)` followed
  // by any of its set_*(...) and run(...) calls, or a name bound to one followed by them.
  // The name of the kernel function it tunes (`k`, or that name), else null. tilec tunes
  // with `tilec tune` (the configs are read by tilec/frontend/autotune.h); compiling
  // gives the kernel for the parameters -D sets.
  static const AstExpr* autotuner_kernel(const AstExpr& e) {
    static const std::set<std::string> methods = {"run", "set_compile_args", "set_profile_args",
                                                  "set_kernel_parameters", "set_cache_args"};
    const AstExpr* at = &e;
    bool chained = false;
    while (at->kind == AstKind::kCall && at->base->kind == AstKind::kAttribute &&
           methods.count(at->base->name)) {
      at = at->base->base.get();
      chained = true;
    }
    if (at->kind == AstKind::kCall && at->base->kind == AstKind::kAttribute &&
        at->base->name == "from_kernel") {
      for (const auto& kw : at->keywords)
        if (kw.name == "kernel") return kw.value->kind == AstKind::kName ? kw.value.get() : nullptr;
      if (!at->children.empty() && at->children[0]->kind == AstKind::kName)
        return at->children[0].get();
      return nullptr;
    }
    return chained && at->kind == AstKind::kName ? at : nullptr;
  }

  // `A.<attr>` where A is a buffer: that buffer, else null.
  Buffer attribute_buffer(const AstExpr& e, const char* attr) const {
    if (e.kind != AstKind::kAttribute || e.name != attr || e.base->kind != AstKind::kName)
      return nullptr;
    const Binding* b = lookup(e.base->name);
    return b && (b->kind == Binding::kBuffer || b->kind == Binding::kVarBuffer) ? b->buffer
                                                                                : nullptr;
  }
  Buffer shape_of(const AstExpr& e) const { return attribute_buffer(e, "shape"); }
  const Binding* tuple_binding(const AstExpr& e) const {
    if (e.kind != AstKind::kName) return nullptr;
    const Binding* b = lookup(e.name);
    return b && b->kind == Binding::kTuple ? b : nullptr;
  }
  // t[i] for a constant i (negative counts from the end), whatever the item is.
  const Binding& tuple_entry(const Binding& t, const AstExpr& sub) {
    if (sub.children.size() != 1 || sub.children[0]->kind == AstKind::kSlice)
      fail(sub.span, "index a tuple with one constant position");
    int64_t i = int_arg(*sub.children[0], "tuple index");
    int64_t n = int64_t(t.items.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n)
      fail(sub.children[0]->span,
           "tuple index out of range (the tuple has " + std::to_string(n) + " items)");
    return t.items[size_t(i)];
  }
  Expr tuple_item(const Binding& t, const AstExpr& sub) {
    const Binding& item = tuple_entry(t, sub);
    if (item.kind != Binding::kConst && item.kind != Binding::kVar)
      fail(sub.span, "this tuple item is not a number");
    return with_span(item.value, sub.span);
  }

  // The state of one eager @tilelang.jit body while its statements are lowered.
  struct EagerBody {
    const AstStmt& def;                    // the @tilelang.jit function
    const std::set<std::string>& tensors;  // its parameters annotated as tensors or scalars
    std::map<std::string, Param>& inputs;  // the kernel parameters found so far, by name
    std::vector<Param> outputs;            // the T.empty outputs, in order
    BlockAccumulator acc;                  // the kernels and what surrounds them
  };

  // One statement of an eager @tilelang.jit body, or of the @T.macro `macro` called there (TileLang
  // expands a macro at its call, so a macro may hold the T.Kernel, allocate outputs with
  // T.empty and check shapes with assert). Tensor annotations of the jit's own parameters
  // are only read at its top level.
  void eager_statement(const AstStmt& st, EagerBody& b, const AstStmt* macro) {
    bool top_level = !macro;
    const AstStmt& s = b.def;
    if (top_level && st.kind == AstStmtKind::kAnnAssign && b.tensors.count(st.target->name) &&
        std::any_of(s.params.begin(), s.params.end(),
                    [&](const AstParam& p) { return p.name == st.target->name; })) {
      const std::string& pname = st.target->name;
      Param param = parameter(pname, *st.annotation, st.target->span);
      b.inputs.emplace(pname, param);
      scopes_.back()[pname] = param.is_buffer() ? Binding{Binding::kBuffer, {}, "", param.buffer}
                                                : Binding{Binding::kVar, param.var, "", {}};
      return;
    }
    const AstExpr* v = st.value.get();
    if (st.kind == AstStmtKind::kAssign && v && v->kind == AstKind::kCall &&
        v->base->kind == AstKind::kAttribute && language_function(*v->base) == "empty") {
      if (st.target->kind != AstKind::kName) fail(st.target->span, "assign T.empty to one name");
      return eager_output(st, *v, b);
    }
    // `copy_impl(A, B)` / `return copy_ret_impl(A)`: an @T.macro expanded here.
    if ((st.kind == AstStmtKind::kExpr || st.kind == AstStmtKind::kReturn) && v &&
        v->kind == AstKind::kCall && v->base->kind == AstKind::kName) {
      const Binding* m = lookup(v->base->name);
      if (m && m->kind == Binding::kFunction && m->macro) {
        const AstStmt& def = *m->function;
        scopes_.push_back(macro_arguments(*v, def));
        scopes_.emplace_back();
        for (const auto& inner : def.body) eager_statement(*inner, b, &def);
        scopes_.pop_back();
        scopes_.pop_back();
        --helper_depth_;
        return;
      }
    }
    switch (st.kind) {
      case AstStmtKind::kWith:
        b.acc.add(kernel_statement(st));
        return;
      case AstStmtKind::kReturn:
      case AstStmtKind::kPass:
        return;
      case AstStmtKind::kAssert:
        return constant_assert(st, top_level ? s.name : macro->name);
      case AstStmtKind::kRaise:
        constant_raise(st, top_level ? s.name : macro->name);  // [[noreturn]]
      case AstStmtKind::kIf:  // on a constant, as in a factory: only the taken branch
        for (const auto& inner : constant_branch(st, top_level ? s.name : macro->name))
          eager_statement(*inner, b, macro);
        return;
      case AstStmtKind::kAssign:
      case AstStmtKind::kAnnAssign:
        if (st.value) assign_constant(*st.target, *st.value);
        for (const auto& t : st.more_targets) assign_constant(*t, *st.value);
        return;
      case AstStmtKind::kExpr:
        if (st.value->kind == AstKind::kString) return;
        [[fallthrough]];
      default:
        fail(st.span, "unsupported statement in the @tilelang.jit function '" + s.name + "'",
             "it declares its tensors (A: T.Tensor(...)), constants and outputs (T.empty), "
             "holds T.Kernel blocks and calls @T.macro functions that hold them");
    }
  }

  // `B = T.empty((M, N), dtype)`, also written T.empty(M, N, dtype=...): a kernel output.
  void eager_output(const AstStmt& st, const AstExpr& v, EagerBody& b) {
    std::vector<Expr> shape;
    DataType t = DataType::Float32();
    bool dtype_keyword = std::any_of(v.keywords.begin(), v.keywords.end(),
                                     [](const auto& kw) { return kw.name == "dtype"; });
    if (v.children.size() > 1 && dtype_keyword) {  // the sizes as separate arguments
      for (const auto& kw : v.keywords)
        if (kw.name != "dtype")
          fail(kw.span, "T.empty got an unexpected keyword argument '" + kw.name + "'");
      for (const auto& c : v.children)
        for (const Expr& d : shape_arg(*c, true)) shape.push_back(d);
      for (const auto& kw : v.keywords) t = dtype_arg(*kw.value);
    } else {
      auto a = bind_args(v, "T.empty", {"shape", "dtype"}, 1);
      shape = shape_arg(*a[0], true);
      if (a[1]) t = dtype_arg(*a[1]);
    }
    auto node = std::make_shared<BufferNode>(
        *make_buffer(st.target->name, shape, t, StorageScope::kGlobal, st.span));
    b.outputs.push_back(make_buffer_param(node));
    scopes_.back()[st.target->name] = Binding{Binding::kBuffer, {}, "", b.outputs.back().buffer};
  }

  // ---------------------------------------------------------------- eager @tilelang.jit
  // def f(A, B, block_M=64): M, N = T.const("M, N"); A: T.Tensor((M, N), dtype); ...
  // C = T.empty((M, N), dtype); with T.Kernel(...): ...; return C. The kernel's
  // parameters are the annotated tensors in parameter order, then the T.empty outputs.
  PrimFunc eager_jit(const AstStmt& s, const std::string& name) {
    std::set<std::string> tensors;
    for (const auto& st : s.body)
      if (st->kind == AstStmtKind::kAnnAssign && st->target->kind == AstKind::kName)
        tensors.insert(st->target->name);
    scopes_.emplace_back();
    out_of_scope_.clear();
    // `alpha: T.float32` / `layer: T.int32` in the signature: a runtime scalar argument of
    // the kernel (TileLang passes it at each call), unless -D fixes its value.
    no_star_parameters(s);
    std::map<std::string, Param> inputs;
    AttrMap attrs;  // the scalar parameters' defaults
    for (const auto& p : s.params) {
      // `A: T.Tensor((128, 128), T.float32)` in the signature: a tensor of that shape, as
      // in a @T.prim_func (its sizes cannot use the body's T.const names).
      if (tensor_annotation(p) && !tensors.count(p.name)) {
        Param param = parameter(p);
        tensors.insert(p.name);
        inputs.emplace(p.name, param);
        scopes_.back()[p.name] = Binding{Binding::kBuffer, {}, "", param.buffer};
        continue;
      }
      std::optional<DataType> t = scalar_annotation(p);
      if (!t || tensors.count(p.name)) continue;
      tensors.insert(p.name);
      if (auto define = options_.defines.find(p.name); define != options_.defines.end()) {
        Expr zero = t->is_float()  ? make_float(0, *t)
                    : t->is_bool() ? make_bool(false)
                                   : make_int(0, *t);
        scopes_.back()[p.name] = define_value(p.name, define->second, {Binding::kConst, zero});
        used_defines_.insert(p.name);
        continue;
      }
      Param param = parameter(p);
      if (p.default_value)
        attrs[param_default_attr(p.name)] = scalar_default(*p.default_value, param.var);
      inputs.emplace(p.name, param);
      scopes_.back()[p.name] = Binding{Binding::kVar, param.var, "", {}};
    }
    bind_parameters(s, {}, {}, ParamSource::kDefinesFirst, tensors);
    EagerBody body_state{s, tensors, inputs, {}, {}};
    for (const auto& st : s.body) eager_statement(*st, body_state, /*macro=*/nullptr);
    std::vector<Param>& outputs = body_state.outputs;
    BlockAccumulator& acc = body_state.acc;
    std::vector<Param> params;
    for (const auto& p : s.params)
      if (auto it = inputs.find(p.name); it != inputs.end()) params.push_back(it->second);
    for (const auto& p : outputs) params.push_back(p);
    eager_outputs_[name] = int64_t(outputs.size());
    Stmt body = acc.finish(s.span);
    scopes_.pop_back();
    require_kernel(body, s, name);
    return make_prim_func(name, std::move(params), std::move(body), std::move(attrs), s.span);
  }

  // `*args` / `**kwargs` parameters are for the helpers autotune configs call (evaluated
  // by tilec/frontend/autotune.h), not for a function that is lowered.
  void no_star_parameters(const AstStmt& s) {
    for (const auto& p : s.params) {
      if (!p.star) continue;
      std::string spelled = (p.star == 2 ? "**" : "*") + p.name;
      fail(p.span, "'" + spelled + "' parameters are not supported in '" + s.name + "'",
           "unpacking is evaluated only in autotune config helpers; declare each "
           "parameter by name");
    }
  }

  // Whether a parameter is annotated T.Tensor(...) / T.Tensor[...] / T.Buffer(...).
  bool tensor_annotation(const AstParam& p) const {
    const AstExpr* a = p.annotation.get();
    if (!a || (a->kind != AstKind::kCall && a->kind != AstKind::kSubscript) ||
        a->base->kind != AstKind::kAttribute)
      return false;
    std::string fn = language_function(*a->base);
    return fn == "Tensor" || fn == "Buffer";
  }

  // The dtype of a `name: T.int32`-style annotation (a TIR scalar type), else none.
  std::optional<DataType> scalar_annotation(const AstParam& p) const {
    if (!p.annotation || p.annotation->kind != AstKind::kAttribute) return std::nullopt;
    std::string fn = language_function(*p.annotation);
    if (fn.empty()) return std::nullopt;
    return DataType::parse(fn);
  }

  Param parameter(const AstParam& p) { return parameter(p.name, *p.annotation, p.span); }
  Param parameter(const std::string& name, const AstExpr& a, Span span) {
    if (a.kind == AstKind::kAttribute) {
      std::string fn = language_function(a);
      if (auto t = DataType::parse(fn); t && !fn.empty())
        return make_scalar_param(make_var(name, *t, span));
    }
    // T.Tensor((M, N), dtype), T.Tensor[(M, N), dtype] and the T.Buffer spellings.
    bool call = a.kind == AstKind::kCall, subscript = a.kind == AstKind::kSubscript;
    if ((call || subscript) && a.base->kind == AstKind::kAttribute) {
      std::string fn = language_function(*a.base);
      if (fn == "Tensor" || fn == "Buffer") {
        const AstExpr* shape_e = nullptr;
        const AstExpr* dtype_e = nullptr;
        bool read_only = false;
        if (call) {
          auto args = bind_args(a, "T." + fn, {"shape", "dtype", "read_only"}, 1);
          shape_e = args[0];
          dtype_e = args[1];
          read_only = args[2] ? bool_arg(*args[2], "read_only") : false;
        } else {
          if (a.children.empty() || a.children.size() > 2)
            fail(a.span, "write T." + fn + "[(M, N), dtype]");
          shape_e = a.children[0].get();
          if (a.children.size() == 2) dtype_e = a.children[1].get();
        }
        std::vector<Expr> shape = shape_arg(*shape_e, /*parameter=*/true);
        DataType t = dtype_e ? dtype_arg(*dtype_e) : DataType::Float32();
        auto node =
            std::make_shared<BufferNode>(*make_buffer(name, shape, t, StorageScope::kGlobal, span));
        node->read_only = read_only;
        return make_buffer_param(node);
      }
    }
    fail(a.span, "unsupported annotation for parameter '" + name + "'",
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
    } else if (Buffer buf = attribute_buffer(e, "dtype")) {
      return buf->dtype;
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
    if (Buffer buf = shape_of(e)) return buf->shape;
    if (const Binding* t = tuple_binding(e)) {
      std::vector<Expr> shape;
      for (const auto& item : t->items) {
        if (item.kind != Binding::kConst && item.kind != Binding::kVar)
          fail(e.span, "'" + e.name + "' is not a tuple of sizes");
        shape.push_back(with_span(item.value, e.span));
      }
      if (shape.empty()) fail(e.span, "a shape needs at least one dimension");
      return shape;
    }
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
        fail(d->span,
             "tensor shape dimensions must be constants or symbolic names, not an expression "
             "of symbolic names",
             "give the dimension its own name: ND = T.symbolic(\"ND\") at module level, or "
             "ND = T.const(\"ND\") / T.dynamic(\"ND\") in a @tilelang.jit function; or fix the "
             "names it uses with -D NAME=VALUE");
      shape.push_back(v);
    }
    return shape;
  }

  // Whether e is T.reshape(...) / T.view(...): a view made in place.
  bool makes_view(const AstExpr& e) {
    if (e.kind != AstKind::kCall || e.base->kind != AstKind::kAttribute) return false;
    std::string fn = language_function(*e.base);
    return fn == "reshape" || fn == "view";
  }

  Buffer buffer_name(const AstExpr& e, const std::string& fn) {
    if (makes_view(e)) {
      // T.copy(T.reshape(A, (M * N,))[i:j], ...): a view made in place.
      std::string made = language_function(*e.base);
      Binding view = view_binding(e, made);
      return view_operand(made + "(" + view.buffer->name + ")", view, e.span);
    }
    if (e.kind == AstKind::kName) {
      const Binding* b = lookup(e.name);
      if (b && (b->kind == Binding::kBuffer || b->kind == Binding::kVarBuffer)) return b->buffer;
      if (!b) fail(e.span, "name '" + e.name + "' is not defined");
      if (b->kind == Binding::kView) return view_operand(e.name, *b, e.span);
    }
    fail(e.span, fn + " expects a buffer here",
         "pass a tensor parameter or a buffer from T.alloc_shared / T.alloc_fragment / "
         "T.alloc_local");
  }

  TileRegion region_arg(const AstExpr& e, const std::string& fn) {
    if (e.kind == AstKind::kName || makes_view(e)) return TileRegion{buffer_name(e, fn), {}};
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
    if (auto* c = e.as<CallNode>()) return fold_math(e, *c, span);
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

  // T.log2(T.Cast("float32", N)) of constants (a host-side round count): the constant,
  // with the interpreter's definition (const_fold.h).
  static Expr fold_math(const Expr& e, const CallNode& c, Span span) {
    DataType t = e.dtype();
    if (c.call_kind != CallKind::kIntrinsic || !t.is_float() || t.lanes != 1 || c.args.empty() ||
        c.args.size() > 3 || !is_math_intrinsic(c.name))
      return e;
    double values[3] = {0, 0, 0};
    for (size_t i = 0; i < c.args.size(); ++i) {
      const auto* f = c.args[i].as<FloatImmNode>();
      if (!f || c.args[i].dtype() != t) return e;
      values[i] = f->value;
    }
    std::optional<double> r = float_math(c.name, values, t);
    return r ? with_span(make_float(*r, t), span) : e;
  }

  // T.cast / T.Cast: a float constant converted to an integer dtype it fits is folded
  // by the conversion rule of tensor.h (truncation), as the interpreter converts it.
  Expr cast_value(DataType t, const Expr& v, Span span) {
    const auto* f = v.as<FloatImmNode>();
    if (f && t.is_integer() && t.lanes == 1 && std::isfinite(f->value)) {
      double whole = std::trunc(f->value);
      bool fits = t.is_uint() ? whole >= 0 && whole < std::ldexp(1.0, t.bits)
                              : whole >= -std::ldexp(1.0, t.bits - 1) &&
                                    whole < std::ldexp(1.0, t.bits - 1);
      if (fits) return with_span(make_int(float_to_integer(f->value, t), t), span);
    }
    return guarded(span, [&] { return cast(t, v, span); });
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
        if (std::optional<Expr> v = python_constant_attribute(e)) return *v;
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
        if (e.base->kind == AstKind::kDict) {
          Binding v = dict_item(e);
          if (v.kind != Binding::kConst && v.kind != Binding::kVar)
            fail(e.span, "this dict value is not a number");
          return with_span(v.value, e.span);
        }
        if (const Binding* t = tuple_binding(*e.base)) return tuple_item(*t, e);
        // [0, 1, 2, 4][log_n]: a factory's table indexed by a constant.
        if (e.base->kind == AstKind::kList || e.base->kind == AstKind::kTuple)
          return tuple_item(const_value(*e.base, "table"), e);
        if (Buffer shaped = shape_of(*e.base)) {
          if (e.children.size() != 1 || e.children[0]->kind == AstKind::kSlice)
            fail(e.span, "index " + shaped->name + ".shape with one constant dimension number");
          int64_t d = int_arg(*e.children[0], "dimension");
          if (d < 0) d += shaped->ndim();
          if (d < 0 || d >= shaped->ndim())
            fail(e.children[0]->span, "buffer '" + shaped->name + "' has " +
                                          std::to_string(shaped->ndim()) + " dimension(s)");
          return with_span(shaped->shape[size_t(d)], e.span);
        }
        ElementAccess access = element_access(e, /*is_store=*/false);
        return guarded(e.span, [&] { return load(access.buffer, access.indices, e.span); });
      }
      case AstKind::kSlice:
        fail(e.span, "a slice is only allowed inside a subscript");
      case AstKind::kTuple:
      case AstKind::kList:
        fail(e.span, "a tuple is not a value here", "tuples are shapes and grids");
      case AstKind::kDict:
        fail(e.span, "a dict is not a value here",
             "dicts are layout maps (T.annotate_layout), attributes and annotations");
      case AstKind::kStarred:
        fail(e.span, "'*' unpacking is not a value here",
             "unpacking (*args, **kwargs) is evaluated only where autotune configs are written "
             "(@autotune(configs=...), AutoTuner.from_kernel(configs=...)); pass each "
             "argument explicitly");
      case AstKind::kListComp:
        fail(e.span, "a list comprehension is not a value here",
             "comprehensions are evaluated only where autotune configs are written "
             "(@autotune(configs=...), AutoTuner.from_kernel(configs=...))");
      case AstKind::kLambda:
        fail(e.span, "lambda expressions are not supported here",
             "a lambda may only define a layout function inside T.annotate_layout hints; "
             "compute the value inline or with T.* functions");
      case AstKind::kBinary: {
        Expr a = expr(*e.children[0]);
        Expr b = expr(*e.children[1]);
        const std::string& op = e.name;
        if (op == "/") {  // Python's true division of two constants is a float
          const auto* ia = a.as<IntImmNode>();
          const auto* ib = b.as<IntImmNode>();
          if (ia && ib && !a.dtype().is_bool() && !b.dtype().is_bool()) {
            if (ib->value == 0) fail(e.span, "division by zero in a constant");
            return with_span(make_float(double(ia->value) / double(ib->value)), e.span);
          }
        }
        if (op == "**") {
          // Constants (factory sizes) evaluate as Python does: int ** non-negative int is
          // an int; otherwise a float.
          const auto* ia = a.as<IntImmNode>();
          const auto* ib = b.as<IntImmNode>();
          if (ia && ib && !a.dtype().is_bool() && !b.dtype().is_bool() && ib->value >= 0) {
            int64_t base = ia->value, r = 1;
            if (base >= -1 && base <= 1) {
              r = base == 1 || ib->value == 0 ? 1 : base == 0 ? 0 : ib->value % 2 ? -1 : 1;
            } else {
              for (int64_t k = 0; k < ib->value; ++k)
                if (__builtin_mul_overflow(r, base, &r))
                  fail(e.span, "the constant " + std::to_string(base) + " ** " +
                                   std::to_string(ib->value) + " does not fit an int64");
            }
            return with_span(fits_int32(r) ? make_int(r) : make_int(r, DataType::Int64()), e.span);
          }
          auto number = [](const Expr& x) -> std::optional<double> {
            if (const auto* i = x.as<IntImmNode>()) return double(i->value);
            if (const auto* f = x.as<FloatImmNode>()) return f->value;
            return std::nullopt;
          };
          if (number(a) && number(b) && (a.as<FloatImmNode>() || b.as<FloatImmNode>()))
            return with_span(make_float(std::pow(*number(a), *number(b))), e.span);
          return guarded(e.span, [&] { return call("pow", {a, b}, e.span); });
        }
        BinaryOp bop = binary_op_for(op);
        return binary_op(bop, a, b, e.span);
      }
      case AstKind::kUnary: {
        Expr a = expr(*e.children[0]);
        if (e.name == "-") return negate(a, e.span);
        if (e.name == "~") {  // Python's ~x == x ^ -1 (all bits set)
          if (!a.dtype().is_integer())
            fail(e.span, "'~' needs an integer operand, not " + a.dtype().str());
          return binary_op(BinaryOp::kBitXor, a, make_int(-1, a.dtype()), e.span);
        }
        if (auto* i = a.as<IntImmNode>()) return with_span(make_bool(i->value == 0), e.span);
        return guarded(e.span, [&] { return unary(UnaryOp::kNot, a, e.span); });
      }
      case AstKind::kCompare: {
        if (e.ops[0] == "is" || e.ops[0] == "is not") return const_value(e, "comparison").value;
        if (auto same = string_compare(e)) return with_span(make_bool(*same), e.span);
        if (e.ops[0] == "in" || e.ops[0] == "not in") return membership(e);
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
        Expr test = expr(*e.children[1]);
        // A constant condition (a factory flag) picks its side, as Python evaluates it.
        if (auto* t = test.as<IntImmNode>()) return expr(*e.children[t->value ? 0 : 2]);
        Expr body = expr(*e.children[0]);
        Expr orelse = expr(*e.children[2]);
        return guarded(e.span, [&] { return select(test, body, orelse, e.span); });
      }
    }
    fail(e.span, "unsupported expression");
  }

  Expr int_literal(const AstExpr& e) {
    const std::string& s = e.name;
    char prefix = s.size() > 2 && s[0] == '0' ? char(std::tolower((unsigned char)s[1])) : 0;
    int radix = prefix == 'x' ? 16 : prefix == 'b' ? 2 : prefix == 'o' ? 8 : 10;
    if (radix == 10 && s.size() > 1 && s[0] == '0' && s.find_first_not_of('0') != std::string::npos)
      fail(e.span, "integer literal with a leading zero", "write it without leading zeros");
    int64_t v = 0;
    const char* begin = s.data() + (radix == 10 ? 0 : 2);
    auto [ptr, ec] = std::from_chars(begin, s.data() + s.size(), v, radix);
    if (ec == std::errc() && ptr != s.data() + s.size())
      fail(e.span, "malformed integer literal '" + s + "'",
           "binary literals use the digits 0 and 1, octal ones 0 to 7");
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
      case Binding::kTuple:
        fail(e.span, "'" + e.name + "' is a tuple, not a number",
             "index it (" + e.name + "[0]) or use it as a shape");
      case Binding::kFunction:
        fail(e.span, "'" + e.name + "' is a function; call it");
      case Binding::kNone:
        fail(e.span, "'" + e.name + "' is None, not a value");
      case Binding::kView:
        fail(e.span, "view '" + e.name + "' is used as a value",
             "index it, e.g. " + e.name + "[i]");
      case Binding::kKernel:
        fail(e.span, "'" + e.name + "' is a kernel, not a value", "return it from the factory");
    }
    fail(e.span, "unsupported name");
  }

  // ------------------------------------------------------- Python's constant functions
  // The dotted path `e` names once module aliases are resolved (tl.cdiv with `import
  // tilelang as tl` -> "tilelang.cdiv"), or "" when it is not rooted in a module.
  std::string python_path(const AstExpr& e) const {
    if (e.kind == AstKind::kName) {
      const Binding* b = lookup(e.name);
      return b && b->kind == Binding::kModule ? b->text : "";
    }
    if (e.kind != AstKind::kAttribute) return "";
    std::string base = python_path(*e.base);
    return base.empty() ? "" : base + "." + e.name;
  }

  PyNumber constant_number(const AstExpr& e, const std::string& fn) {
    Expr v = expr(e);
    if (const auto* i = v.as<IntImmNode>()) return int64_t(i->value);
    if (const auto* f = v.as<FloatImmNode>()) return f->value;
    fail(e.span, fn + " is evaluated when the kernel is built and needs a constant here",
         "pass a factory parameter or a literal, or use the T.* function for kernel values");
  }
  Expr number_expr(const PyNumber& v, Span span) {
    if (const auto* i = std::get_if<int64_t>(&v))
      return with_span(fits_int32(*i) ? make_int(*i) : make_int(*i, DataType::Int64()), span);
    return with_span(make_float(std::get<double>(v)), span);
  }

  // math.pi / DataType(dtype).bits / T.dtype(dtype).bits ...: a constant, else nullopt.
  std::optional<Expr> python_constant_attribute(const AstExpr& e) {
    std::string path = python_path(e);
    if (std::optional<double> c = python_math_constant(path))
      return with_span(make_float(*c), e.span);
    const AstExpr& base = *e.base;
    if (base.kind != AstKind::kCall) return std::nullopt;
    std::string callee = python_path(*base.base);
    if (callee != "tvm.DataType" && language_function(*base.base) != "dtype") return std::nullopt;
    auto a = bind_args(base, callee.empty() ? "T.dtype" : "DataType", {"dtype"}, 1);
    DataType t = dtype_arg(*a[0]);
    std::optional<int64_t> v = dtype_attribute(t, e.name);
    if (!v)
      fail(e.span, "unsupported dtype attribute '." + e.name + "'",
           "supported: .bits, .lanes, .itemsize");
    return with_span(make_int(*v), e.span);
  }

  // tilelang.math.next_power_of_2(n), math.ceil(x), n.bit_length(), isinstance(x, int)
  // on constants (python_constants.h); nullopt when `e` calls none of them.
  std::optional<Expr> python_constant_call(const AstExpr& e) {
    if (e.base->kind == AstKind::kName && e.base->name == "isinstance" && !lookup("isinstance"))
      return python_isinstance(e);
    if (e.base->kind == AstKind::kName && !lookup(e.base->name))
      if (std::optional<Expr> v = python_builtin(e)) return v;
    std::string path;
    std::vector<const AstExpr*> operands;
    if (e.base->kind == AstKind::kAttribute && e.base->name == "bit_length" &&
        python_path(*e.base).empty() && language_function(*e.base).empty()) {
      path = "int.bit_length";
      operands.push_back(e.base->base.get());
    } else {
      path = python_path(*e.base);
      if (path.empty()) return std::nullopt;
    }
    for (const auto& c : e.children) operands.push_back(c.get());
    std::vector<PyNumber> args;
    if (!call_python_constant_known(path)) return std::nullopt;
    if (path == "tilelang.cdiv") {  // symbolic operands keep the formula (below)
      for (const AstExpr* c : operands)
        if (!expr(*c).as<IntImmNode>()) return std::nullopt;
    }
    if (!e.keywords.empty()) no_keywords(e, path);
    for (const AstExpr* c : operands) args.push_back(constant_number(*c, path));
    try {
      return number_expr(*call_python_constant(path, args), e.span);
    } catch (const std::invalid_argument& err) {
      fail(e.span, err.what());
    }
  }
  // Whether `path` is a function python_constants.h evaluates (probed with its arity).
  static bool call_python_constant_known(const std::string& path) {
    for (size_t n = 0; n <= 2; ++n) {
      try {
        if (call_python_constant(path, std::vector<PyNumber>(n, PyNumber(int64_t(4))))) return true;
      } catch (const std::invalid_argument&) {
        return true;
      }
    }
    return false;
  }

  // len(tuple or str), sum(tuple of numbers), int(number), float(number) on constants
  // (Python's builtins); nullopt for other names and for int()/float() of kernel values.
  std::optional<Expr> python_builtin(const AstExpr& e) {
    const std::string& fn = e.base->name;
    if (fn != "len" && fn != "sum" && fn != "int" && fn != "float") return std::nullopt;
    auto a = bind_args(e, fn, {"x"}, 1);
    Binding v = const_value(*a[0], fn);
    if (fn == "len") {
      if (v.kind == Binding::kTuple) return with_span(make_int(int64_t(v.items.size())), e.span);
      if (v.kind == Binding::kString) return with_span(make_int(int64_t(v.text.size())), e.span);
      fail(a[0]->span, "len() takes a constant tuple, list or string here");
    }
    if (fn == "sum") {
      if (v.kind != Binding::kTuple) fail(a[0]->span, "sum() takes a constant tuple or list here");
      Expr total = make_int(0);
      for (const Binding& item : v.items) {
        if (item.kind != Binding::kConst) fail(a[0]->span, "sum() adds numbers only");
        total = binary_op(BinaryOp::kAdd, total, item.value, e.span);
      }
      if (!total.as<IntImmNode>() && !total.as<FloatImmNode>())
        fail(a[0]->span, "sum() adds constants only here");
      return with_span(total, e.span);
    }
    const auto* i = v.kind == Binding::kConst ? v.value.as<IntImmNode>() : nullptr;
    const auto* f = v.kind == Binding::kConst ? v.value.as<FloatImmNode>() : nullptr;
    if (!i && !f) return std::nullopt;  // a kernel value: the error below names T.cast
    if (fn == "float") return with_span(make_float(i ? double(i->value) : f->value), e.span);
    if (i) return with_span(make_int(i->value), e.span);
    if (!std::isfinite(f->value) || std::fabs(f->value) >= 9.2e18)
      fail(e.span, "int() of a float that does not fit an int64");
    int64_t t = int64_t(f->value);  // truncates toward zero, as Python's int()
    return with_span(fits_int32(t) ? make_int(t) : make_int(t, DataType::Int64()), e.span);
  }

  // {key: value, ...}[key] on constants: the value of the first equal key.
  Binding dict_item(const AstExpr& e) {
    const AstExpr& dict = *e.base;
    if (e.children.size() != 1 || e.children[0]->kind == AstKind::kSlice)
      fail(e.span, "index a dict with one constant key");
    Binding key = const_value(*e.children[0], "key");
    for (size_t k = 0; k + 1 < dict.children.size(); k += 2)
      if (same_constant(key, const_value(*dict.children[k], "key"), e.span))
        return const_value(*dict.children[k + 1], "value");
    fail(e.children[0]->span, "the dict has no such key", "index it with one of its keys");
  }

  // isinstance(x, int / float / bool / str / tuple / list / dict, or a tuple of them) on
  // a constant: Python's answer (a bool is an int; a symbolic dimension is none of them).
  Expr python_isinstance(const AstExpr& e) {
    auto a = bind_args(e, "isinstance", {"obj", "classinfo"}, 2);
    Binding v = const_value(*a[0], "isinstance");
    std::vector<const AstExpr*> classes;
    if (a[1]->kind == AstKind::kTuple)
      for (const auto& c : a[1]->children) classes.push_back(c.get());
    else
      classes.push_back(a[1]);
    bool result = false;
    for (const AstExpr* c : classes) {
      static const std::set<std::string> known = {"int",   "float", "bool", "str",
                                                  "tuple", "list",  "dict"};
      if (c->kind != AstKind::kName || !known.count(c->name) || lookup(c->name))
        fail(c->span, "isinstance checks Python's int, float, bool, str, tuple, list or dict here",
             "constants of a factory are one of those; kernel values have no Python type");
      const std::string& k = c->name;
      const auto* i = v.kind == Binding::kConst ? v.value.as<IntImmNode>() : nullptr;
      bool is_bool = i && v.value.dtype().is_bool();
      result = result || (k == "int" && i) || (k == "bool" && is_bool) ||
               (k == "float" && v.kind == Binding::kConst && v.value.as<FloatImmNode>()) ||
               (k == "str" && v.kind == Binding::kString) ||
               (k == "tuple" && v.kind == Binding::kTuple && v.text != "list") ||
               (k == "list" && v.kind == Binding::kTuple && v.text == "list");
    }
    return with_span(make_bool(result), e.span);
  }

  // `x in container` / `x not in container` on constants: a tuple or list (items equal as
  // Python compares them), a dict literal (its keys) or a string (a substring).
  Expr membership(const AstExpr& e) {
    if (e.ops.size() != 1)
      fail(e.span, "chain 'in' with other comparisons through 'and'", "write (a in b) and c < d");
    Binding item = const_value(*e.children[0], "in");
    const AstExpr& right = *e.children[1];
    std::vector<Binding> candidates;
    bool found = false;
    if (right.kind == AstKind::kDict) {
      for (size_t k = 0; k < right.children.size(); k += 2)
        candidates.push_back(const_value(*right.children[k], "in"));
    } else {
      Binding c = const_value(right, "in");
      if (c.kind == Binding::kString) {
        if (item.kind != Binding::kString)
          fail(e.children[0]->span, "'in <string>' needs a string on the left");
        found = c.text.find(item.text) != std::string::npos;
      } else if (c.kind == Binding::kTuple) {
        candidates = c.items;
      } else {
        fail(right.span, "'in' looks into a constant tuple, list, dict or string",
             "write x in (a, b, c)");
      }
    }
    for (const Binding& c : candidates) found = found || same_constant(item, c, e.span);
    return with_span(make_bool(e.ops[0] == "in" ? found : !found), e.span);
  }
  bool same_constant(const Binding& a, const Binding& b, Span span) {
    auto number = [](const Binding& x) -> std::optional<double> {
      if (x.kind != Binding::kConst) return std::nullopt;
      if (const auto* i = x.value.as<IntImmNode>()) return double(i->value);
      if (const auto* f = x.value.as<FloatImmNode>()) return f->value;
      return std::nullopt;
    };
    if (a.kind == Binding::kVar || b.kind == Binding::kVar ||
        (a.kind == Binding::kConst && !number(a)) || (b.kind == Binding::kConst && !number(b)))
      fail(span, "'in' compares constants, but a value here is only known when the kernel runs",
           "compare kernel values with == and 'or'");
    if (a.kind == Binding::kString || b.kind == Binding::kString)
      return a.kind == b.kind && a.text == b.text;
    if (a.kind == Binding::kNone || b.kind == Binding::kNone) return a.kind == b.kind;
    if (a.kind == Binding::kTuple || b.kind == Binding::kTuple) {
      if (a.kind != b.kind || a.items.size() != b.items.size()) return false;
      for (size_t i = 0; i < a.items.size(); ++i)
        if (!same_constant(a.items[i], b.items[i], span)) return false;
      return true;
    }
    if (number(a) && number(b)) return *number(a) == *number(b);
    return false;
  }

  // T.any_of(region) / T.all_of(region): whether any / every element of a buffer region
  // is true (non-zero), TileLang's block-mask test. The region has constant extents; the
  // result is the or / and of its elements' loads, in row-major order.
  Expr any_all_of(const AstExpr& e, const std::string& fn) {
    auto a = bind_args(e, "T." + fn, {"buffer"}, 1);
    TileRegion r = region_arg(*a[0], "T." + fn);
    std::vector<Expr> starts;
    std::vector<int64_t> extents;
    int64_t total = 1;
    for (int d = 0; d < r.buffer->ndim(); ++d) {
      Expr start = r.is_whole() ? make_int(0) : r.dims[size_t(d)].start;
      Expr extent = r.buffer->shape[size_t(d)];
      if (!r.is_whole())
        extent =
            r.dims[size_t(d)].stop
                ? fold(binary_op(BinaryOp::kSub, *r.dims[size_t(d)].stop, start, e.span), e.span)
                : make_int(1);
      auto* c = extent.as<IntImmNode>();
      if (!c || c->value < 1)
        fail(a[0]->span, "T." + fn + " needs a region of constant, positive extents",
             "slice with constant bounds, e.g. M[i, 0:4], or pass a fixed-size buffer");
      starts.push_back(start);
      extents.push_back(c->value);
      total *= c->value;
    }
    if (total > 4096)
      fail(a[0]->span, "T." + fn + " over " + std::to_string(total) + " elements is too large",
           "reduce the region first (T.reduce_max) and test the result");
    bool any = fn == "any_of";
    Expr result;
    std::vector<int64_t> idx(extents.size(), 0);
    for (int64_t n = 0; n < total; ++n) {
      std::vector<Expr> indices;
      for (size_t d = 0; d < idx.size(); ++d)
        indices.push_back(
            idx[d] == 0
                ? starts[d]
                : fold(binary_op(BinaryOp::kAdd, starts[d], make_int(idx[d]), e.span), e.span));
      Expr v = guarded(e.span, [&] { return load(r.buffer, indices, e.span); });
      if (!v.dtype().is_bool()) v = binary_op(BinaryOp::kNE, v, make_int(0), e.span);
      result = result ? binary_op(any ? BinaryOp::kOr : BinaryOp::kAnd, result, v, e.span) : v;
      for (size_t d = idx.size(); d-- > 0;) {  // row-major odometer
        if (++idx[d] < extents[d]) break;
        idx[d] = 0;
      }
    }
    return result;
  }

  Expr call_expr(const AstExpr& e) {
    if (std::optional<Expr> v = python_constant_call(e)) return *v;
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
      } else if (const Binding* helper = lookup(name);
                 helper->kind == Binding::kFunction && !helper->macro) {
        // A helper returning a value, called in an expression
        // (`if not _is_power_of_two(N):`): its value, as in a constant.
        Binding r = call_helper(e, *helper);
        if (r.kind != Binding::kConst)
          fail(e.span, "helper '" + name + "' returns a value that is not a number here",
               "use its result where a tuple, dtype or kernel is expected");
        return with_span(r.value, e.span);
      } else {
        fail(e.base->span, "'" + name + "' is not a function", kSupportedExprCalls);
      }
    } else if (e.base->kind == AstKind::kAttribute) {
      fn = language_function(*e.base);
      if (fn.empty() && e.base->name == "cdiv" && e.base->base->kind == AstKind::kName) {
        const Binding* m = lookup(e.base->base->name);
        if (m && m->kind == Binding::kModule && m->text == "tilelang") {  // tilelang.cdiv
          no_keywords(e, "tilelang.cdiv");
          if (e.children.size() != 2) fail(e.span, "tilelang.cdiv takes 2 arguments");
          Expr a = expr(*e.children[0]), b = expr(*e.children[1]);
          Expr less = binary_op(BinaryOp::kSub, binary_op(BinaryOp::kAdd, a, b, e.span),
                                make_int(1), e.span);
          return binary_op(BinaryOp::kFloorDiv, less, b, e.span);
        }
      }
      if (fn.empty() && e.base->name == "astype") {  // x.astype(dtype), TVM's PrimExpr method
        auto a = bind_args(e, "astype", {"dtype"}, 1);
        Expr v = expr(*e.base->base);
        DataType t = dtype_arg(*a[0]);
        return guarded(e.span, [&] { return cast(t, v, e.span); });
      }
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
    if (fn == "any_of" || fn == "all_of") return any_all_of(e, fn);
    if (fn == "clamp") {  // TileLang's T.clamp(x, lo, hi) = T.min(T.max(x, lo), hi)
      auto a = bind_args(e, qualified, {"dst", "min_val", "max_val"}, 3);
      std::vector<Expr> v = {expr(*a[0]), expr(*a[1]), expr(*a[2])};
      return guarded(e.span, [&] {
        Expr low = fold(call("max", {v[0], v[1]}, e.span), e.span);
        return fold(call("min", {low, v[2]}, e.span), e.span);
      });
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
    hardware_only(e.span, fn);
    if (is_warp_shuffle_name(fn)) {
      auto a = bind_args(e, qualified,
                         {"value", fn == "shfl_sync" ? "srcLane" : "delta", "width", "mask"}, 2);
      if (!in_kernel_) fail(e.span, qualified + " is only meaningful inside a T.Kernel");
      Expr v = expr(*a[0]), lane = expr(*a[1]);
      Expr width = a[2] ? expr(*a[2]) : make_int(32);
      if (a[3]) expr(*a[3]);  // mask: every thread of the block takes part on tilec's targets
      // A shuffle is per-thread code: the kernel's threads are bound.
      for (size_t d = 0; d < kernel_threads_.size(); ++d)
        if (!kernel_thread_vars_[d])
          kernel_thread_vars_[d] = make_var(default_thread_name(d), DataType::Int32(), e.span);
      return guarded(e.span, [&] { return warp_shuffle(fn, v, lane, width, e.span); });
    }
    if (is_warp_primitive(fn))
      fail(e.span,
           qualified +
               " (a warp-level exchange between threads) is not supported yet: the CPU "
               "model runs a block's threads one after another between barriers, and "
               "tilec does not define warp exchanges on it",
           "exchange values through a T.alloc_shared tile with T.sync_threads() between the "
           "writes and the reads, or use T.reduce_* on a fragment");
    if (fn == "thread_return")
      fail(e.span,
           "T.thread_return is not supported: a thread cannot leave the block early on every "
           "target (the CPU model runs the block's threads in loops split at barriers)",
           "guard the rest of the thread's work with an if on its thread index instead");
    if (fn == "launch_thread") return launch_thread(e);
    if (fn == "get_block_binding" || fn == "get_thread_binding") {
      auto a = bind_args(e, qualified, {"dim"}, 0);
      int64_t d = a[0] ? int_arg(*a[0], "dim") : 0;
      if (!in_kernel_) fail(e.span, qualified + " is only meaningful inside a T.Kernel");
      // TileLang's launch always has three thread and three block axes; those the
      // T.Kernel does not list have extent 1, so their index is 0.
      size_t listed =
          fn == "get_thread_binding" ? kernel_threads_.size() : kernel_block_vars_.size();
      if (d >= int64_t(listed) && d < 3) return with_span(make_int(0), e.span);
      if (fn == "get_thread_binding") return thread_var(d, e.span, qualified);
      if (d < 0 || d >= int64_t(kernel_block_vars_.size()))
        fail(e.span,
             "the kernel has " + std::to_string(kernel_block_vars_.size()) +
                 " grid dimension(s); T.get_block_binding(" + std::to_string(d) +
                 ") names none of them",
             "axes 0 to 2 exist (those the T.Kernel does not list have index 0)");
      return kernel_block_vars_[size_t(d)];
    }
    if (fn == "atomic_add" || fn == "atomic_max" || fn == "atomic_min") {
      auto a = bind_args(e, qualified, {"dst", "value", "return_prev", "memory_order"}, 2);
      return atomic_element(e, fn, *a[0], *a[1]);
    }
    if (fn == "Cast") {  // TVM's T.Cast(dtype, value)
      auto a = bind_args(e, qualified, {"dtype", "value"}, 2);
      DataType t = dtype_arg(*a[0]);
      return cast_value(t, expr(*a[1]), e.span);
    }
    if (fn == "floordiv" || fn == "floormod" || fn == "truncdiv" || fn == "truncmod") {
      auto v = args(2);
      if (fn[0] == 't' &&
          !(v[0].dtype().is_uint() || (as_const_int(v[0]) && *as_const_int(v[0]) >= 0 &&
                                       as_const_int(v[1]) && *as_const_int(v[1]) > 0)))
        fail(e.span, qualified + " is only supported where it equals floor division",
             "use // and % (floor division and modulo)");
      BinaryOp op = fn.find("div") != std::string::npos ? BinaryOp::kFloorDiv : BinaryOp::kFloorMod;
      return binary_op(op, v[0], v[1], e.span);
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
      return cast_value(dtype_arg(*a[1]), v, e.span);
    }
    if (fn == "Ramp" || fn == "Broadcast") return with_span(vector_lane_value(e, fn), e.span);
    if (fn == "max_value" || fn == "min_value") {
      auto a = bind_args(e, qualified, {"dtype"}, 1);
      return with_span(dtype_limit(dtype_arg(*a[0]), fn == "min_value"), e.span);
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
        "copy",       "fill",          "clear",         "gemm",   "reduce_sum", "reduce_max",
        "reduce_min", "reduce_abssum", "reduce_absmax", "reduce", "evaluate"};
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
    for (const auto& s : stmts) {
      statement(*s, acc);
      // Every statement that takes views resolves them; one left means a construct that
      // does not take a view got one.
      if (view_operands_.pending())
        fail(s->span, "this statement does not take a view (from T.reshape / T.view) as an operand",
             "T.copy, T.fill, T.clear, T.gemm, T.reduce_* and tile atomics take views; pass "
             "the viewed buffer to other operations");
    }
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
        assignment(s, *s.target, acc);
        for (const auto& t : s.more_targets) assignment(s, *t, acc);
        return;
      case AstStmtKind::kAnnAssign:
        return annotated_local(s, acc);
      case AstStmtKind::kAssert:
        fail(s.span, "'assert' is not allowed inside a kernel",
             "check sizes in the factory: `assert M % block_M == 0` before the @T.prim_func");
      case AstStmtKind::kRaise:
        fail(s.span, "'raise' is not allowed inside a kernel",
             "reject unsupported parameters in the factory, before the @T.prim_func");
      case AstStmtKind::kReturn:
        fail(s.span, "'return' is not allowed inside a kernel",
             "a kernel writes its results to its tensor parameters; factories return kernels");
      case AstStmtKind::kAugAssign:
        return aug_assignment(s, acc);
      case AstStmtKind::kFor:
        if (!in_kernel_ && launches_kernel(s.body)) return unrolled_launches(s, acc);
        return acc.add(for_statement(s));
      case AstStmtKind::kIf:
        return acc.add(if_statement(s));
      case AstStmtKind::kWith:
        return acc.add(with_statement(s));
      case AstStmtKind::kFunctionDef:
        fail(s.span, "nested functions are not supported",
             "define every @T.prim_func at module level");
      case AstStmtKind::kOpaque:  // only made at module level
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
    hardware_only(e.span, fn);
    if (e.kind == AstKind::kCall && e.base->kind == AstKind::kName) {
      const Binding* b = lookup(e.base->name);
      if (b && b->kind == Binding::kFunction && b->macro) return expand_macro(e, *b, acc);
    }
    if (is_result_neutral_hint(fn)) {
      for (const auto& c : e.children) check_hint_argument(*c);
      return;
    }
    if (fn == "use_swizzle") return use_swizzle(e);
    if (fn == "reducer_init" || fn == "reducer_update" || fn == "finalize_reducer") {
      if (std::optional<Stmt> st = reducer_statement(e, fn, s.span)) acc.add(on_views(*st, s.span));
      return;
    }
    if (fn == "atomic_add" || fn == "atomic_max" || fn == "atomic_min")
      return acc.add(on_views(atomic_statement(e, fn, s.span), s.span));
    if (fn == "cumsum") return acc.add(on_views(cumsum_statement(e, s.span), s.span));
    if (fn == "atomic_addx2" || fn == "atomic_addx4")
      return acc.add(
          on_views(atomic_vector_statement(e, fn == "atomic_addx2" ? 2 : 4, s.span), s.span));
    if (fn == "launch_thread") {  // T.launch_thread("threadIdx.y", 1): checked, binds nothing
      launch_thread(e);
      return;
    }
    if (fn == "sync_threads" || fn == "sync_warp" || fn == "sync_global") {
      no_keywords(e, q);
      StorageScope scope = fn == "sync_global" ? StorageScope::kGlobal : StorageScope::kShared;
      return acc.add(evaluate(barrier(scope, e.span), s.span));
    }
    if (fn == "copy") {
      // annotations / coalesced_width / disable_tma / eviction_policy / loop_layout only
      // steer how a GPU moves the tile; the copied values are the same.
      auto a = bind_args(e, q,
                         {"src", "dst", "coalesced_width", "disable_tma", "eviction_policy",
                          "annotations", "loop_layout"},
                         2);
      TileRegion src = region_arg(*a[0], q), dst = region_arg(*a[1], q);
      return acc.add(on_views(copy(src, dst, s.span), s.span));
    }
    if (fn == "fill" || fn == "clear") {
      auto a =
          fn == "fill" ? bind_args(e, q, {"buffer", "value"}, 2) : bind_args(e, q, {"buffer"}, 1);
      TileRegion dst = region_arg(*a[0], q);
      DataType t = dst.buffer->dtype;
      Expr value = fn == "clear" ? make_zero(t) : expr(*a[1]);
      value = guarded(a[fn == "fill" ? 1 : 0]->span, [&] { return cast(t, value); });
      return acc.add(on_views(fill(dst, value, s.span), s.span));
    }
    if (fn == "gemm") {
      // policy / k_pack / wg_wait choose how GPU warps share the product; C is the same.
      auto a = bind_args(e, q,
                         {"A", "B", "C", "transpose_A", "transpose_B", "policy", "clear_accum",
                          "k_pack", "wg_wait"},
                         3);
      if (a[5]) gemm_policies_[{s.span.line, s.span.col}] = gemm_policy(*a[5]);
      if (a[7]) {
        int64_t k_pack = int_arg(*a[7], "k_pack");
        if (k_pack < 1) fail(a[7]->span, "k_pack must be at least 1");
      }
      if (a[8]) int_arg(*a[8], "wg_wait");
      auto n = std::make_shared<GemmNode>();
      n->span = s.span;
      n->a = region_arg(*a[0], q);
      n->b = region_arg(*a[1], q);
      n->c = region_arg(*a[2], q);
      n->transpose_a = a[3] && bool_arg(*a[3], "transpose_A");
      n->transpose_b = a[4] && bool_arg(*a[4], "transpose_B");
      n->clear_accum = a[6] && bool_arg(*a[6], "clear_accum");
      return acc.add(on_views(Stmt(n), s.span));
    }
    static const std::map<std::string, ReduceKind> reduces = {
        {"reduce_sum", ReduceKind::kSum},
        {"reduce_max", ReduceKind::kMax},
        {"reduce_min", ReduceKind::kMin},
        {"reduce_abssum", ReduceKind::kAbsSum},
        {"reduce_absmax", ReduceKind::kAbsMax}};
    if (auto it = reduces.find(fn); it != reduces.end()) {
      auto a = bind_args(e, q, {"buffer", "out", "dim", "clear"}, 2);
      return acc.add(
          on_views(reduce_statement(e, q, it->second, a[0], a[1], a[2], a[3], s.span), s.span));
    }
    if (fn == "reduce") {
      // TileLang's generic form, which its T.reduce_<kind> wrappers call:
      // T.reduce(buffer, out, reduce_type, dim, clear).
      auto a = bind_args(e, q, {"buffer", "out", "reduce_type", "dim", "clear"}, 4);
      Binding type = const_value(*a[2], "reduce_type");
      auto it = type.kind == Binding::kString ? reduces.find("reduce_" + type.text) : reduces.end();
      if (it == reduces.end())
        fail(a[2]->span,
             "T.reduce's reduce_type must be \"sum\", \"max\", \"min\", \"abssum\" or "
             "\"absmax\"",
             "T.reduce(A, B, \"sum\", dim, clear) is T.reduce_sum(A, B, dim=dim, clear=clear)");
      return acc.add(
          on_views(reduce_statement(e, q, it->second, a[0], a[1], a[3], a[4], s.span), s.span));
    }
    if (fn == "evaluate") {
      auto a = bind_args(e, q, {"value"}, 1);
      return acc.add(evaluate(expr(*a[0]), s.span));
    }
    if (fn == "tvm_storage_sync") return acc.add(evaluate(expr(e), s.span));
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

  // T.atomic_add(C[i, j], v) updates one element; T.atomic_add(C[i0, j0], tile) or
  // T.atomic_add(C[i0:i1, j], tile) adds a whole buffer elementwise into the region
  // (its sliced dimensions, in order, match the tile's), skipping elements outside C.
  Stmt atomic_statement(const AstExpr& e, const std::string& fn, Span span) {
    const std::string q = "T." + fn;
    auto a = bind_args(e, q, {"dst", "value", "return_prev", "memory_order", "use_tma"}, 2);
    const AstExpr& value = *a[1];
    bool tile_value = (value.kind == AstKind::kName && lookup(value.name) &&
                       (lookup(value.name)->kind == Binding::kBuffer ||
                        lookup(value.name)->kind == Binding::kView));
    if (!tile_value) return evaluate(atomic_element(e, fn, *a[0], value), span);
    Buffer src = buffer_name(value, q);
    TileRegion dst = region_arg(*a[0], q);
    if (dst.is_whole()) {
      for (const auto& d : dst.buffer->shape) dst.dims.push_back({make_int(0), d});
    }
    std::vector<size_t> mapped;  // dst dimensions that follow the tile's
    for (size_t d = 0; d < dst.dims.size(); ++d)
      if (dst.dims[d].stop || dst.is_point()) mapped.push_back(d);
    if (int(mapped.size()) != src->ndim())
      fail(e.span, q + ": the destination region has " + std::to_string(mapped.size()) +
                       " tiled dimension(s) but '" + src->name + "' has " +
                       std::to_string(src->ndim()));
    std::vector<Var> vars;
    std::vector<Expr> dst_index, src_index;
    for (int d = 0; d < src->ndim(); ++d) {
      vars.push_back(make_var("i" + std::to_string(d) + "_" + fn, DataType::Int32(), e.span));
      src_index.push_back(vars.back());
    }
    Expr inside;
    for (size_t d = 0, k = 0; d < dst.dims.size(); ++d) {
      if (k < mapped.size() && mapped[k] == d) {
        Expr at = binary_op(BinaryOp::kAdd, dst.dims[d].start, vars[k], e.span);
        Expr ok = binary_op(BinaryOp::kLT, at, dst.buffer->shape[d], e.span);
        inside = inside ? binary_op(BinaryOp::kAnd, inside, ok, e.span) : ok;
        dst_index.push_back(at);
        ++k;
      } else {
        dst_index.push_back(dst.dims[d].start);
      }
    }
    Expr element = guarded(e.span, [&] { return load(dst.buffer, dst_index, e.span); });
    Expr update = guarded(
        e.span, [&] { return atomic_update(fn, element, load(src, src_index, e.span), e.span); });
    Stmt body = if_then_else(inside, evaluate(update, span), Stmt(), span);
    for (size_t k = vars.size(); k-- > 0;)
      body = guarded(span, [&] {
        return for_loop(vars[k], make_int(0), src->shape[k], body, ForKind::kParallel, 1, span);
      });
    return body;
  }
  // T.atomic_addx2 / T.atomic_addx4(dst, value): TileLang's vectorized atomic add of the
  // `lanes` consecutive elements starting at dst (A[i, j], or A[i, j:j + lanes]) and at
  // value, along the last dimension. Each element is one atomic add (TileLang's single
  // 2x16- or 4x32-bit instruction updates the same elements); value converts to dst's dtype.
  Stmt atomic_vector_statement(const AstExpr& e, int64_t lanes, Span span) {
    const std::string q = "T.atomic_addx" + std::to_string(lanes);
    auto a = bind_args(e, q, {"dst", "value", "return_prev"}, 2);
    if (a[2] && bool_arg(*a[2], "return_prev"))
      fail(a[2]->span,
           q + " with return_prev=True returns a " + std::to_string(lanes) +
               "-lane vector, which tilec has no value for",
           "use T.atomic_add(A[i, j], v, return_prev=True) per element");
    auto origin = [&](const AstExpr& arg, const char* what) {
      TileRegion r = region_arg(arg, q);
      if (r.is_whole())
        for (size_t d = 0; d < r.buffer->shape.size(); ++d) r.dims.push_back({make_int(0), {}});
      if (r.buffer->ndim() == 0) fail(arg.span, q + "'s " + what + " must be a buffer element");
      for (size_t d = 0; d < r.dims.size(); ++d) {
        if (!r.dims[d].stop) continue;
        std::optional<int64_t> n = slice_extent(r.dims[d].start, *r.dims[d].stop);
        bool last = d + 1 == r.dims.size();
        if (!n || *n != (last ? lanes : 1))
          fail(arg.span,
               q + "'s " + what + " slice of '" + r.buffer->name + "' must span " +
                   std::string(last ? std::to_string(lanes) + " elements in the last dimension"
                                    : "one element in the dimensions before the last"),
               "write " + r.buffer->name + "[i, j] or " + r.buffer->name + "[i, j:j + " +
                   std::to_string(lanes) + "]");
      }
      return r;
    };
    TileRegion dst = origin(*a[0], "destination"), src = origin(*a[1], "value");
    Var lane = make_var("lane", DataType::Int32(), e.span);
    auto element = [&](const TileRegion& r) {
      std::vector<Expr> index;
      for (const auto& d : r.dims) index.push_back(d.start);
      index.back() = binary_op(BinaryOp::kAdd, index.back(), lane, e.span);
      return guarded(e.span, [&] { return load(r.buffer, index, e.span); });
    };
    Expr target = element(dst), value = element(src);
    Expr update =
        guarded(e.span, [&] { return atomic_update("atomic_add", target, value, e.span); });
    return guarded(span, [&] {
      return for_loop(lane, make_int(0), make_int(lanes), evaluate(update, span),
                      ForKind::kUnrolled, 1, span);
    });
  }

  // T.cumsum(src, dst=None, dim=0, reverse=False): TileLang's inclusive prefix sum of a
  // buffer or region along dim (reverse: the suffix sum), into dst (src itself when None,
  // same extents). It lowers here into loops every target runs: a T.Parallel nest over
  // the other dimensions (one iteration for a 1-D tile), each iteration scanning its line
  // serially, dst[k] = dst[k -/+ 1] + src[k], rounded to dst's dtype at every step.
  Stmt cumsum_statement(const AstExpr& e, Span span) {
    const std::string q = "T.cumsum";
    auto a = bind_args(e, q, {"src", "dst", "dim", "reverse"}, 1);
    struct Operand {
      Buffer buffer;
      std::vector<Expr> starts, extents;
    };
    auto operand = [&](const AstExpr& arg) {
      TileRegion r = region_arg(arg, q);
      // Its scan's T.Parallel over the other dimensions would reach the viewed buffer at
      // remapped indices, which the independence check cannot tell apart.
      if (view_operands_.is_stand_in(r.buffer))
        fail(arg.span,
             q + " does not take the view '" + r.buffer->name + "' (from T.reshape / T.view)",
             "T.copy the view into a T.alloc_shared / T.alloc_fragment tile of its shape, scan "
             "that and T.copy it back");
      if (r.buffer->scope == StorageScope::kGlobal || r.buffer->scope == StorageScope::kVar)
        fail(arg.span,
             q + " scans a shared or fragment tile, not the " +
                 std::string(to_string(r.buffer->scope)) + " buffer '" + r.buffer->name + "'",
             "T.copy the data into a T.alloc_shared or T.alloc_fragment tile first");
      Operand o{r.buffer, {}, {}};
      for (int d = 0; d < r.buffer->ndim(); ++d) {
        if (r.is_whole()) {
          o.starts.push_back(make_int(0));
          o.extents.push_back(r.buffer->shape[size_t(d)]);
        } else if (r.dims[size_t(d)].stop) {
          std::optional<int64_t> n = slice_extent(r.dims[size_t(d)].start, *r.dims[size_t(d)].stop);
          if (!n || *n <= 0)
            fail(arg.span,
                 q + ": the slices of '" + r.buffer->name + "' need constant, positive extents",
                 "write A[i * 16:(i + 1) * 16] or A[i:i + 16]");
          o.starts.push_back(r.dims[size_t(d)].start);
          o.extents.push_back(make_int(*n));
        } else {
          o.starts.push_back(r.dims[size_t(d)].start);
          o.extents.push_back(make_int(1));
        }
      }
      return o;
    };
    Operand src = operand(*a[0]);
    Operand dst = a[1] && a[1]->kind != AstKind::kNone ? operand(*a[1]) : src;
    int ndim = src.buffer->ndim();
    int64_t dim = a[2] ? int_arg(*a[2], "dim") : 0;
    if (dim < -ndim || dim >= ndim)
      fail(a[2] ? a[2]->span : e.span,
           "dim " + std::to_string(dim) + " is out of range for the " + std::to_string(ndim) +
               "-dimensional '" + src.buffer->name + "'",
           "use a dim in [" + std::to_string(-ndim) + ", " + std::to_string(ndim - 1) + "]");
    if (dim < 0) dim += ndim;
    bool reverse = a[3] && bool_arg(*a[3], "reverse");
    bool same_extents = dst.extents.size() == src.extents.size();
    for (size_t d = 0; same_extents && d < src.extents.size(); ++d)
      same_extents = structural_equal(src.extents[d], dst.extents[d]);
    if (!same_extents)
      fail(e.span,
           q + ": '" + dst.buffer->name + "' must have the extents of '" + src.buffer->name + "'",
           "scan into a tile of the same shape, or leave dst out to scan in place");
    const int64_t* n = as_const_int(src.extents[size_t(dim)]);
    if (!n) fail(e.span, q + " scans a dimension of constant extent");
    std::vector<Var> vars;
    for (int d = 0; d < ndim; ++d)
      vars.push_back(make_var(d == dim ? "k_cumsum" : "i" + std::to_string(d) + "_cumsum",
                              DataType::Int32(), e.span));
    auto at = [&](const Operand& o, const Expr& k) {
      std::vector<Expr> index;
      for (int d = 0; d < ndim; ++d)
        index.push_back(binary_op(BinaryOp::kAdd, o.starts[size_t(d)],
                                  d == dim ? k : Expr(vars[size_t(d)]), e.span));
      return index;
    };
    auto load_at = [&](const Operand& o, const Expr& k) {
      return guarded(e.span, [&] { return load(o.buffer, at(o, k), e.span); });
    };
    Var k = vars[size_t(dim)];
    Expr first = make_int(reverse ? *n - 1 : 0);
    Expr previous = binary_op(reverse ? BinaryOp::kAdd : BinaryOp::kSub, k, make_int(1), e.span);
    Stmt init =
        guarded(span, [&] { return store(dst.buffer, at(dst, first), load_at(src, first), span); });
    Expr sum = binary_op(BinaryOp::kAdd, load_at(dst, previous), load_at(src, k), e.span);
    Stmt step = guarded(span, [&] { return store(dst.buffer, at(dst, k), sum, span); });
    Stmt scan = guarded(span, [&] {
      return reverse ? for_loop(k, make_int(*n - 2), make_int(-1), step, ForKind::kSerial, -1, span)
                     : for_loop(k, make_int(1), make_int(*n), step, ForKind::kSerial, 1, span);
    });
    Stmt body = seq({init, scan}, span);
    bool any_parallel = false;
    for (int d = ndim; d-- > 0;) {
      if (d == dim) continue;
      any_parallel = true;
      body = guarded(span, [&] {
        return for_loop(vars[size_t(d)], make_int(0), src.extents[size_t(d)], body,
                        ForKind::kParallel, 1, span);
      });
    }
    if (!any_parallel) {  // a 1-D tile: one T.Parallel iteration scans it
      Var one = make_var("i_cumsum", DataType::Int32(), e.span);
      body = guarded(span, [&] {
        return for_loop(one, make_int(0), make_int(1), body, ForKind::kParallel, 1, span);
      });
    }
    return body;
  }

  // The constant extent of the slice start:stop (both constants, or stop = start + c).
  static std::optional<int64_t> slice_extent(const Expr& start, const Expr& stop) {
    const int64_t* a = as_const_int(start);
    const int64_t* b = as_const_int(stop);
    if (a && b) return *b - *a;
    const auto* add = stop.as<BinaryNode>();
    if (add && add->op == BinaryOp::kAdd && structural_equal(add->a, start))
      if (const int64_t* c = as_const_int(add->b)) return *c;
    return std::nullopt;
  }

  Expr atomic_element(const AstExpr& e, const std::string& fn, const AstExpr& dst,
                      const AstExpr& value) {
    if (dst.kind != AstKind::kSubscript)
      fail(dst.span, "T." + fn + " updates one element A[i, j] or adds a tile into a region");
    Expr element = expr(dst);
    Expr v = expr(value);
    return guarded(e.span, [&] { return atomic_update(fn, element, v, e.span); });
  }

  // T.reduce_<kind>(buffer, out, dim=-1, clear=True) and T.reduce(buffer, out, kind, dim,
  // clear): whole buffers, dim in [-ndim, ndim), clear by default.
  Stmt reduce_statement(const AstExpr& e, const std::string& q, ReduceKind kind,
                        const AstExpr* buffer, const AstExpr* out, const AstExpr* dim_arg,
                        const AstExpr* clear, Span span) {
    auto n = std::make_shared<ReduceNode>();
    n->span = span;
    n->reduce_kind = kind;
    for (const AstExpr* operand : {buffer, out})
      if (operand->kind != AstKind::kName && !makes_view(*operand))
        fail(operand->span, q + " operands must be whole buffers",
             "reduce a whole fragment or shared buffer; copy a region into one first");
    n->src = buffer_name(*buffer, q);
    n->dst = buffer_name(*out, q);
    int64_t dim = dim_arg ? int_arg(*dim_arg, "dim") : -1;
    int ndim = n->src->ndim();
    if (dim < -ndim || dim >= ndim)
      fail(dim_arg ? dim_arg->span : e.span,
           "dim " + std::to_string(dim) + " is out of range for the " + std::to_string(ndim) +
               "-dimensional buffer '" + n->src->name + "'",
           "use a dim in [" + std::to_string(-ndim) + ", " + std::to_string(ndim - 1) + "]");
    n->dim = int(dim < 0 ? dim + ndim : dim);
    n->clear = clear ? bool_arg(*clear, "clear") : true;
    return Stmt(n);
  }

  // Refuses T.<fn> when it is a Hopper/Blackwell-only construct (hardware_only.h).
  void hardware_only(Span span, const std::string& fn, const std::string& spelled = "") const {
    if (fn.empty()) return;
    if (const HardwareOnlyConstruct* c = find_hardware_only(fn))
      fail(span, hardware_only_message(spelled.empty() ? "T." + fn : spelled, *c),
           hardware_only_hint(*c));
  }

  // T.GemmWarpPolicy.Square / FullRow / FullCol: how GPU warps split the gemm
  // (gemm_policy.h), kept by the gemm's source place until the function is built.
  GemmWarpPolicy gemm_policy(const AstExpr& e) {
    if (e.kind == AstKind::kAttribute && e.base->kind == AstKind::kAttribute &&
        language_function(*e.base) == "GemmWarpPolicy") {
      std::optional<GemmWarpPolicy> policy = parse_gemm_warp_policy(e.name);
      if (!policy)
        fail(e.span, "unknown T.GemmWarpPolicy." + e.name, "policies: Square, FullRow, FullCol");
      return *policy;
    }
    fail(e.span, "policy must be a T.GemmWarpPolicy", "e.g. policy=T.GemmWarpPolicy.FullRow");
  }

  // Hint arguments (layout dicts, attribute dicts, panel sizes) are checked to be
  // well-formed names and constants, then dropped.
  // The reducer family (docs/semantics.md, "Reducers"): T.reducer_init(r[, value]) fills
  // r with its op's identity (or value), T.reducer_update(r[i, j], v) combines v into
  // one element as one indivisible step, so updates from any T.Parallel iterations
  // may meet, and T.finalize_reducer(r[, dst]) makes the combined values available
  // (copied into dst). The reducer is a per-block tile (shared scope), so the update is
  // an atomic read-modify-write on every target.
  std::optional<Stmt> reducer_statement(const AstExpr& e, const std::string& fn, Span span) {
    const std::string q = "T." + fn;
    auto reducer_of = [&](const AstExpr& arg) -> std::pair<Buffer, std::string> {
      const AstExpr& base = arg.kind == AstKind::kSubscript ? *arg.base : arg;
      Buffer b = buffer_name(base, q);
      auto it = reducer_ops_.find(b.get());
      if (it == reducer_ops_.end())
        fail(base.span, q + ": '" + b->name + "' is not a reducer",
             "allocate it with " + b->name + " = T.alloc_reducer(shape, dtype, op=\"sum\")");
      return {b, it->second};
    };
    if (fn == "reducer_init") {
      auto a = bind_args(e, q, {"reducer", "value"}, 1);
      const auto reducer = reducer_of(*a[0]);  // named, not bound: lambdas below use them
      const Buffer& r = reducer.first;
      const std::string& op = reducer.second;
      Expr value = a[1] ? expr(*a[1]) : reducer_identity(op, r->dtype, a[0]->span);
      value = guarded(a[1] ? a[1]->span : a[0]->span, [&] { return cast(r->dtype, value); });
      return fill(TileRegion{r, {}}, value, span);
    }
    if (fn == "reducer_update") {
      auto a = bind_args(e, q, {"target", "value"}, 2);
      if (a[0]->kind != AstKind::kSubscript)
        fail(a[0]->span, q + " updates one element of a reducer",
             "write T.reducer_update(r[i, j], v)");
      const auto reducer = reducer_of(*a[0]);  // named, not bound: lambdas below use them
      const std::string& op = reducer.second;
      ElementAccess access = element_access(*a[0], /*is_store=*/false);
      Expr v = expr(*a[1]);
      // sum -> atomic_add, max/min -> atomic_max/min, bitand/bitor/bitxor -> atomic_and/
      // or/xor (integer reducers only: the allocation checked the dtype).
      static const std::map<std::string, std::string> atomics = {
          {"sum", "atomic_add"},    {"max", "atomic_max"},  {"min", "atomic_min"},
          {"bitand", "atomic_and"}, {"bitor", "atomic_or"}, {"bitxor", "atomic_xor"}};
      const std::string& name = atomics.at(op);
      return guarded(span, [&] {
        Expr element = load(access.buffer, access.indices, a[0]->span);
        return evaluate(atomic_update(name, element, v, span), span);
      });
    }
    // finalize_reducer(r) or finalize_reducer(r, dst)
    auto a = bind_args(e, q, {"reducer", "dst", "batch"}, 1);
    const auto reducer = reducer_of(*a[0]);  // named, not bound: lambdas below use them
    const Buffer& r = reducer.first;
    if (a[2] && int_arg(*a[2], "batch") < 1) fail(a[2]->span, "batch must be at least 1");
    if (!a[1]) return std::nullopt;  // in place: the one per-block copy is already combined
    TileRegion dst = region_arg(*a[1], q);
    bool same_shape = dst.buffer->shape.size() == r->shape.size();
    for (size_t d = 0; same_shape && d < r->shape.size(); ++d)
      same_shape = structural_equal(dst.buffer->shape[d], r->shape[d]);
    if (dst.buffer->dtype != r->dtype || !dst.is_whole() || !same_shape)
      fail(a[1]->span, q + "'s destination must be a whole buffer of the reducer's shape and dtype",
           "allocate it as T.alloc_fragment(" + r->name + ".shape, " + r->name + ".dtype)");
    return guarded(span, [&] { return copy(TileRegion{r, {}}, dst, span); });
  }

  // The identity of a reducer's combine op: sum, bitor and bitxor 0, bitand all ones, max
  // the dtype's lowest finite value, min its highest, as TileLang's T.reducer_init.
  Expr reducer_identity(const std::string& op, DataType t, Span span) {
    if (op == "sum" || op == "bitor" || op == "bitxor") return make_zero(t);
    if (op == "bitand") return t.is_uint() ? dtype_limit(t, false) : make_int(-1, t);
    return guarded(span,
                   [&] { return op == "max" ? dtype_limit(t, true) : dtype_limit(t, false); });
  }

  // T.min_value(dtype) / T.max_value(dtype): the lowest / highest finite value.
  static Expr dtype_limit(DataType t, bool lowest) {
    if (t.is_bool()) return make_bool(!lowest);
    if (t.is_integer()) {
      if (t.is_uint()) {
        if (lowest) return make_int(0, t);
        return make_int(t.bits == 64 ? -1 : int64_t((uint64_t(1) << t.bits) - 1), t);
      }
      int64_t top =
          t.bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (t.bits - 1)) - 1;
      return make_int(lowest ? -top - 1 : top, t);
    }
    double top = t.is_float8()     ? float8_max(t)
                 : t.is_bfloat16() ? 3.3895313892515355e38
                 : t.bits == 16    ? 65504.0
                 : t.bits == 32    ? double(std::numeric_limits<float>::max())
                                   : std::numeric_limits<double>::max();
    return make_float(lowest ? -top : top, t);
  }

  // T.use_swizzle(panel_size, order="row", enable=True): remaps the enclosing kernel's
  // block indices (block_swizzle.h) once its body is lowered.
  void use_swizzle(const AstExpr& e) {
    auto a = bind_args(e, "T.use_swizzle", {"panel_size", "order", "enable", "num_xcds"}, 1);
    if (!in_kernel_) fail(e.span, "T.use_swizzle is only meaningful inside a T.Kernel");
    if (a[2] && !bool_arg(*a[2], "enable")) return;
    if (a[3] && int_arg(*a[3], "num_xcds") != 0)
      fail(a[3]->span, "T.use_swizzle(num_xcds=...) remaps blocks over AMD chiplets (XCDs)",
           "tilec's targets have none: leave num_xcds at 0");
    BlockSwizzle swizzle;
    swizzle.panel_size = int_arg(*a[0], "panel_size");
    if (swizzle.panel_size < 1)
      fail(a[0]->span, "T.use_swizzle panel_size must be at least 1, got " +
                           std::to_string(swizzle.panel_size));
    if (a[1]) {
      Binding order = const_value(*a[1], "order");
      if (order.kind != Binding::kString || (order.text != "row" && order.text != "column"))
        fail(a[1]->span, "T.use_swizzle order must be \"row\" or \"column\"");
      swizzle.column = order.text == "column";
    }
    if (kernel_swizzle_)
      fail(e.span, "T.use_swizzle appears twice in one kernel", "keep one of them");
    kernel_swizzle_ = swizzle;
  }

  void check_hint_argument(const AstExpr& e) {
    if (e.kind == AstKind::kDict || e.kind == AstKind::kString || e.kind == AstKind::kBool ||
        e.kind == AstKind::kLambda)
      return;
    if (e.kind == AstKind::kName && lookup(e.name)) return;
    if (e.kind == AstKind::kName) fail(e.span, "name '" + e.name + "' is not defined");
  }

  // A call of an @T.macro: its body is lowered in place, its parameters bound to the
  // call's buffers and values (Python evaluates arguments at the call).
  void expand_macro(const AstExpr& call, const Binding& macro, BlockAccumulator& acc) {
    const AstStmt& def = *macro.function;
    scopes_.push_back(macro_arguments(call, def));
    macro_bases_.push_back(scopes_.size() - 1);
    scopes_.emplace_back();
    for (const auto& st : def.body) statement(*st, acc);
    scopes_.pop_back();
    macro_bases_.pop_back();
    scopes_.pop_back();
    --helper_depth_;
  }

  // The scope binding a macro's parameters to a call's arguments; counts one level of
  // macro depth, which the caller gives back when the expansion ends.
  std::unordered_map<std::string, Binding> macro_arguments(const AstExpr& call,
                                                           const AstStmt& def) {
    if (++helper_depth_ > 64) fail(call.span, "macro calls nested too deeply (limit 64)");
    no_star_parameters(def);
    if (call.children.size() > def.params.size())
      fail(call.span, "macro '" + def.name + "' takes " + std::to_string(def.params.size()) +
                          " argument(s), got " + std::to_string(call.children.size()));
    std::unordered_map<std::string, Binding> bound;
    for (size_t i = 0; i < def.params.size(); ++i) {
      const AstParam& p = def.params[i];
      const AstExpr* arg = i < call.children.size() ? call.children[i].get() : nullptr;
      for (const auto& kw : call.keywords)
        if (kw.name == p.name) arg = kw.value.get();
      if (!arg) arg = p.default_value.get();
      if (!arg) fail(call.span, "macro '" + def.name + "' is missing argument '" + p.name + "'");
      const Binding* named = arg->kind == AstKind::kName ? lookup(arg->name) : nullptr;
      if (named && named->kind != Binding::kVarBuffer) {
        bound[p.name] = *named;
      } else if (named) {
        bound[p.name] = *named;  // a mutable scalar stays mutable inside the macro
      } else {
        bound[p.name] = Binding{Binding::kConst, expr(*arg), "", {}};
      }
    }
    return bound;
  }

  void assignment(const AstStmt& s, const AstExpr& target, BlockAccumulator& acc) {
    const AstExpr& value = *s.value;
    if (target.kind == AstKind::kSubscript) {
      if (std::optional<int64_t> lanes = ramp_lanes(target))
        return acc.add(
            lane_loop(*lanes, s.span, [&] { return element_store(target, expr(value), s.span); }));
      return acc.add(element_store(target, expr(value), s.span));
    }
    if (target.kind == AstKind::kTuple || target.kind == AstKind::kList)
      return unpacking(s, target, acc);
    if (target.kind != AstKind::kName)
      fail(target.span, "unsupported assignment target",
           "assign one name (x = ...) or one element (A[i, j] = ...) per statement");
    const std::string& name = target.name;
    std::string fn = value.kind == AstKind::kCall && value.base->kind == AstKind::kAttribute
                         ? language_function(*value.base)
                         : "";
    hardware_only(value.span, fn);
    if (fn == "reshape" || fn == "view") {
      bind_local(name, view_binding(value, fn), target.span);
      return;
    }
    if (auto view = data_view(value, fn)) {
      bind_local(name, *view, target.span);
      return;
    }
    if (fn == "alloc_shared" || fn == "alloc_fragment" || fn == "alloc_local" ||
        fn == "alloc_buffer" || fn == "decl_buffer" || fn == "alloc_reducer") {
      std::vector<std::string> names = {"shape", "dtype", "scope"};
      if (fn == "alloc_reducer") names = {"shape", "dtype", "op", "replication"};
      if (fn == "decl_buffer")
        names = {"shape", "dtype", "data", "strides", "elem_offset", "scope"};
      auto a = bind_args(value, "T." + fn, names, 2);
      std::vector<Expr> shape = shape_arg(*a[0], false);
      DataType t = dtype_arg(*a[1]);
      StorageScope scope = fn == "alloc_shared" ? StorageScope::kShared
                           : fn == "alloc_fragment" || fn == "alloc_reducer"
                               ? StorageScope::kFragment
                           : fn == "alloc_local" ? StorageScope::kLocal
                                                 : StorageScope::kShared;
      if (fn == "decl_buffer" && (a[2] || a[3] || a[4]))
        fail((a[2]   ? a[2]
              : a[3] ? a[3]
                     : a[4])
                 ->span,
             "T.decl_buffer over existing data (data=, strides=, elem_offset=) is not supported",
             "declare a fresh buffer: T.decl_buffer(shape, dtype, scope=\"shared\")");
      std::string reducer_op = "sum";
      if (fn == "alloc_reducer") {
        scope = StorageScope::kShared;  // updates from any thread of the block meet here
        static const std::set<std::string> ops = {"sum", "max", "min", "bitand", "bitor", "bitxor"};
        if (a[2]) {
          Binding op = const_value(*a[2], "op");
          if (op.kind != Binding::kString || !ops.count(op.text))
            fail(a[2]->span,
                 "T.alloc_reducer's op is \"sum\", \"max\", \"min\", \"bitand\", "
                 "\"bitor\" or \"bitxor\"");
          reducer_op = op.text;
          if (reducer_op.rfind("bit", 0) == 0 && !t.is_integer())
            fail(a[2]->span, "the bitwise reducer op '" + reducer_op +
                                 "' needs an integer dtype, not " + t.str());
        }
        if (a[3]) {
          Binding rep = const_value(*a[3], "replication");
          if (rep.kind != Binding::kNone &&
              (rep.kind != Binding::kString || (rep.text != "all" && rep.text != "none")))
            fail(a[3]->span, "T.alloc_reducer's replication is \"all\", \"none\" or None");
        }
      }
      if (const AstExpr* sc = fn == "decl_buffer" ? a[5] : fn == "alloc_reducer" ? nullptr : a[2])
        scope = scope_arg(*sc);
      Buffer buffer = make_buffer(name, shape, t, scope, target.span);
      bind_local(name, {Binding::kBuffer, {}, "", buffer}, target.span);
      if (fn == "alloc_reducer") reducer_ops_[buffer.get()] = reducer_op;
      return acc.open_allocate(buffer, std::nullopt, s.span);
    }
    if (fn == "alloc_var") {
      auto a = bind_args(value, "T.alloc_var", {"dtype", "init", "scope"}, 1);
      DataType t = dtype_arg(*a[0]);
      std::optional<Expr> init;
      if (a[1]) init = expr(*a[1]);
      Buffer buffer = make_buffer(name, {make_int(1)}, t, StorageScope::kVar, target.span);
      bind_local(name, {Binding::kVarBuffer, {}, "", buffer}, target.span);
      return guarded(s.span, [&] { acc.open_allocate(buffer, init, s.span); });
    }
    if (fn.rfind("alloc_", 0) == 0 && !fn.empty())
      fail(value.base->span, "unknown allocation T." + fn,
           "supported: T.alloc_shared, T.alloc_fragment, T.alloc_local, T.alloc_var, "
           "T.alloc_buffer, T.decl_buffer, T.alloc_reducer");
    if (fn == "get_thread_binding" || fn == "launch_thread") {
      // tn = T.get_thread_binding(0): `tn` names the thread index itself (no let), so the
      // kernel prints back as written.
      thread_name_hint_ = name;
      Expr v = expr(value);
      thread_name_hint_.clear();
      if (v.as<VarNode>() || as_const_int(v))
        return bind_local(name, {Binding::kVar, v, "", {}}, target.span);
    }
    Expr v = expr(value);
    if (const Binding* b = lookup(name); b && b->kind == Binding::kVarBuffer)
      return acc.add(guarded(s.span, [&] { return store(b->buffer, {make_int(0)}, v, s.span); }));
    // A constant computed on the host side (`total_rounds = ceil_log2 // LOG_BLOCK_N`
    // between launches) stays a constant, so a launch loop's trip count may use it.
    if (!in_kernel_ && (v.as<IntImmNode>() || v.as<FloatImmNode>()))
      return bind_local(name, {Binding::kConst, v, "", {}}, target.span);
    Var var = make_var(name, v.dtype(), target.span);
    bind_local(name, {Binding::kVar, var, "", {}}, target.span);
    acc.open_let(var, v, s.span);
  }

  // `a, b = x // H, x % H`: every value is computed before any name is bound.
  void unpacking(const AstStmt& s, const AstExpr& target, BlockAccumulator& acc) {
    const AstExpr& value = *s.value;
    if (value.kind != AstKind::kTuple && value.kind != AstKind::kList)
      fail(value.span, "only a tuple of values can be unpacked inside a kernel",
           "write a, b = x // H, x % H");
    if (value.children.size() != target.children.size())
      fail(value.span, "cannot unpack " + std::to_string(value.children.size()) + " values into " +
                           std::to_string(target.children.size()) + " names");
    std::vector<Expr> values;
    for (const auto& c : value.children) values.push_back(expr(*c));
    for (size_t i = 0; i < values.size(); ++i) {
      const AstExpr& t = *target.children[i];
      if (t.kind != AstKind::kName)
        fail(t.span, "only names can be unpacked into", "write a, b = x, y");
      if (const Binding* b = lookup(t.name); b && b->kind == Binding::kVarBuffer) {
        acc.add(
            guarded(s.span, [&] { return store(b->buffer, {make_int(0)}, values[i], s.span); }));
        continue;
      }
      Var var = make_var(t.name, values[i].dtype(), t.span);
      bind_local(t.name, {Binding::kVar, var, "", {}}, t.span);
      acc.open_let(var, values[i], s.span);
    }
  }

  // `x: T.int32 = 0` in a kernel: a mutable scalar, as T.alloc_var(T.int32, init=0).
  void annotated_local(const AstStmt& s, BlockAccumulator& acc) {
    if (s.target->kind != AstKind::kName)
      fail(s.target->span, "annotate one name", "write x: T.int32 = 0");
    const std::string& name = s.target->name;
    DataType t = dtype_arg(*s.annotation);
    std::optional<Expr> init;
    if (s.value) init = expr(*s.value);
    Buffer buffer = make_buffer(name, {make_int(1)}, t, StorageScope::kVar, s.target->span);
    bind_local(name, {Binding::kVarBuffer, {}, "", buffer}, s.target->span);
    guarded(s.span, [&] { acc.open_allocate(buffer, init, s.span); });
  }

  StorageScope scope_arg(const AstExpr& e) {
    // A literal or a factory constant holding one (shared_scope = "shared").
    Binding b = e.kind == AstKind::kString || e.kind == AstKind::kName ? const_value(e, "scope")
                                                                       : Binding(Binding::kNone);
    if (b.kind != Binding::kString)
      fail(e.span, "a storage scope is a string", "e.g. scope=\"shared\"");
    const std::string& text = b.text;
    if (text == "shared" || text == "shared.dyn" || text == "global") return StorageScope::kShared;
    if (auto scope = parse_storage_scope(text)) return *scope;
    fail(e.span, "unknown storage scope '" + text + "'",
         "scopes: shared, shared.dyn, local, local.fragment, local.var");
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
    if (b->kind != Binding::kBuffer && b->kind != Binding::kVarBuffer &&
        b->kind != Binding::kView) {
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
    if (b->kind == Binding::kView) return view_access(*b, std::move(indices), e);
    return {b->buffer, std::move(indices)};
  }

  // V[i, j] of a view V = T.reshape(A, (R, C)): A at the element whose row-major linear
  // index is i * C + j (a reshape keeps the element order, as TileLang's does).
  ElementAccess view_access(const Binding& view, std::vector<Expr> indices, const AstExpr& e) {
    if (indices.size() != view.items.size())
      fail(e.span, "view '" + e.base->name + "' has " + std::to_string(view.items.size()) +
                       " dimension(s); it is indexed with " + std::to_string(indices.size()));
    return {view.buffer, root_indices(view_shape(view), view.buffer->shape, std::move(indices))};
  }

  static std::vector<Expr> view_shape(const Binding& view) {
    std::vector<Expr> shape;
    for (const auto& d : view.items) shape.push_back(d.value);
    return shape;
  }

  // A view as a tile-op operand: a stand-in resolved with the statement (view_tile_ops.h).
  Buffer view_operand(const std::string& name, const Binding& view, Span span) {
    return view_operands_.stand_in(name, view.buffer, view_shape(view), span);
  }

  // A tile-op statement with its view operands resolved (view_tile_ops.h).
  Stmt on_views(Stmt st, Span span) {
    try {
      return view_operands_.resolve(st);
    } catch (const ViewOperandError& e) {
      fail(span, e.what(), e.hint);
    } catch (const SourceError&) {
      throw;
    } catch (const IRError& e) {
      fail(span, e.what());
    }
  }

  // V = T.reshape(A, shape) / T.view(A, shape=None, dtype=None) in a kernel body.
  Binding view_binding(const AstExpr& value, const std::string& fn) {
    const std::string q = "T." + fn;
    auto a = fn == "reshape" ? bind_args(value, q, {"src", "shape"}, 2)
                             : bind_args(value, q, {"src", "shape", "dtype"}, 1);
    return view_of(value, *a[0], a[1], fn == "view" ? a[2] : nullptr, q, /*data_view=*/false);
  }

  // `T.Tensor(shape, dtype, A.data)` (also T.Buffer, T.decl_buffer(..., data=A.data)) in
  // a kernel body: a buffer over A's data, i.e. a view of A; null when the call names no
  // `X.data`.
  std::optional<Binding> data_view(const AstExpr& value, const std::string& fn) {
    if (fn != "Tensor" && fn != "Buffer" && fn != "decl_buffer") return std::nullopt;
    const AstExpr* data = value.children.size() >= 3 ? value.children[2].get() : nullptr;
    for (const auto& kw : value.keywords)
      if (kw.name == "data") data = kw.value.get();
    if (!data || data->kind != AstKind::kAttribute || data->name != "data") return std::nullopt;
    const std::string q = "T." + fn;
    auto a = bind_args(value, q, {"shape", "dtype", "data", "strides", "elem_offset", "scope"}, 3);
    for (const AstExpr* extra : {a[3], a[4]})
      if (extra)
        fail(extra->span,
             q + " over '" + data->base->name +
                 ".data' with strides or an offset "
                 "is not supported",
             "a buffer over another's data is a row-major view of it from its first element");
    return view_of(value, *data->base, a[0], a[1], q, /*data_view=*/true);
  }

  // The view of `src` under `shape` (null: src's own) and `dtype` (null: src's). A view
  // over a tensor's data (`data_view`) may cover a prefix of its elements; T.reshape and
  // T.view keep the count.
  Binding view_of(const AstExpr& value, const AstExpr& src, const AstExpr* shape_expr,
                  const AstExpr* dtype_expr, const std::string& q, bool data_view) {
    const Binding* b = src.kind == AstKind::kName ? lookup(src.name) : nullptr;
    if (!b || (b->kind != Binding::kBuffer && b->kind != Binding::kView))
      fail(src.span,
           q + (data_view ? " expects the data of a buffer"
                          : " expects a buffer as its first argument"),
           "pass a tensor parameter or a buffer from T.alloc_shared / T.alloc_fragment");
    Buffer root = b->buffer;
    if (dtype_expr && dtype_arg(*dtype_expr) != root->dtype)
      fail(dtype_expr->span,
           q + " to dtype " + dtype_arg(*dtype_expr).str() + " reinterprets the bits of '" +
               src.name + "' (" + root->dtype.str() + "); tilec views keep the dtype",
           "read the elements and convert them with T.cast(x, dtype)");
    std::vector<Expr> shape = shape_expr                  ? shape_arg(*shape_expr, false)
                              : b->kind == Binding::kView ? std::vector<Expr>{}
                                                          : root->shape;
    Binding view(Binding::kView, {}, "", root);
    if (!shape_expr && b->kind == Binding::kView) {
      view.items = b->items;
      return view;
    }
    auto count = [](const std::vector<Expr>& dims) -> std::optional<int64_t> {
      int64_t n = 1;
      for (const auto& d : dims) {
        const auto* i = d.as<IntImmNode>();
        if (!i) return std::nullopt;
        n *= i->value;
      }
      return n;
    };
    std::optional<int64_t> have = count(root->shape), want = count(shape);
    if (have && want && (data_view ? *want > *have : *want != *have))
      fail(value.span,
           q + " of '" + src.name + "' to " + std::to_string(*want) + " elements: the buffer has " +
               std::to_string(*have),
           data_view ? "a buffer over another's data may not reach past its " +
                           std::to_string(*have) + " elements"
                     : "a view keeps the element count; its shape's product must be " +
                           std::to_string(*have));
    for (const auto& d : shape) view.items.push_back({Binding::kConst, d, "", {}});
    return view;
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
    auto element_update = [&] {
      Expr current = expr(target);
      auto* load_node = current.as<LoadNode>();
      Expr v = binary_op(bop, current, expr(*s.value), s.span);
      return guarded(s.span,
                     [&] { return store(load_node->buffer, load_node->indices, v, s.span); });
    };
    if (std::optional<int64_t> lanes = ramp_lanes(target))
      return acc.add(lane_loop(*lanes, s.span, element_update));
    acc.add(element_update());
  }

  // Vector statements (docs/semantics.md, "Vectors"): a store whose index holds a
  // T.Ramp(base, stride, lanes) stores `lanes` elements, lane l at base + stride * l, of
  // a value whose T.Ramp loads and T.Broadcast(v, lanes) operands are taken lane by lane.
  // It is lowered here to a T.vectorized loop over the lanes, which every target runs
  // (and the CPU and SIMT code generators may turn back into vector instructions).
  std::optional<int64_t> ramp_lanes(const AstExpr& target) {
    for (const auto& c : target.children) {
      if (c->kind == AstKind::kCall && c->base->kind == AstKind::kAttribute &&
          language_function(*c->base) == "Ramp") {
        auto a = bind_args(*c, "T.Ramp", {"base", "stride", "lanes"}, 3);
        int64_t lanes = int_arg(*a[2], "lanes");
        if (lanes < 1 || lanes > 64)
          fail(a[2]->span, "T.Ramp lanes must be between 1 and 64, got " + std::to_string(lanes));
        return lanes;
      }
    }
    return std::nullopt;
  }

  template <class F>
  Stmt lane_loop(int64_t lanes, Span span, F&& body_of) {
    if (vector_lane_) fail(span, "a vector statement cannot be nested in another");
    Var lane = make_var("lane", DataType::Int32(), span);
    vector_lane_ = VectorLane{lane, lanes};
    Stmt body = body_of();
    vector_lane_.reset();
    return guarded(span, [&] {
      return for_loop(lane, make_int(0), make_int(lanes), body, ForKind::kVectorized, 1, span);
    });
  }

  // T.Ramp / T.Broadcast as an expression: lane `vector_lane_` of the vector.
  Expr vector_lane_value(const AstExpr& e, const std::string& fn) {
    const std::string q = "T." + fn;
    auto a = fn == "Ramp" ? bind_args(e, q, {"base", "stride", "lanes"}, 3)
                          : bind_args(e, q, {"value", "lanes"}, 2);
    const AstExpr& lanes_arg = *a[fn == "Ramp" ? 2 : 1];
    int64_t lanes = int_arg(lanes_arg, "lanes");
    if (!vector_lane_)
      fail(e.span,
           q + " is a vector of " + std::to_string(lanes) +
               " lanes; tilec takes vectors in a store indexed by T.Ramp",
           "write B[T.Ramp(i, 1, 4)] = A[T.Ramp(i, 1, 4)] * T.Broadcast(s, 4), or a T.vectorized "
           "loop");
    if (lanes != vector_lane_->lanes)
      fail(lanes_arg.span,
           q + " has " + std::to_string(lanes) + " lanes but the statement stores " +
               std::to_string(vector_lane_->lanes),
           "every vector of one statement has the same number of lanes");
    if (fn == "Broadcast") return expr(*a[0]);
    Expr base = expr(*a[0]), stride = expr(*a[1]);
    return guarded(e.span, [&] { return base + stride * Expr(vector_lane_->lane); });
  }

  Stmt if_statement(const AstStmt& s) {
    Expr cond = expr(*s.value);
    // A constant condition (a factory flag: `if is_causal:`, `if window_size is not None:`)
    // picks its branch as Python does; the other is not lowered, so it may use what this
    // configuration leaves undefined (`window_size` None, a buffer of another variant).
    if (auto* c = cond.as<IntImmNode>()) {
      const AstBlock& taken = c->value ? s.body : s.orelse;
      return block(taken, taken.empty() ? s.span : taken[0]->span);
    }
    Stmt then_case = block(s.body, s.span);
    Stmt else_case = s.orelse.empty() ? Stmt() : block(s.orelse, s.orelse[0]->span);
    return guarded(s.span, [&] { return if_then_else(cond, then_case, else_case, s.span); });
  }

  // `with CONTEXT:` inside a function: T.Kernel, or TVM script's if-frames.
  Stmt with_statement(const AstStmt& s) {
    const AstExpr& ctx = *s.value;
    std::string fn = ctx.kind == AstKind::kCall && ctx.base->kind == AstKind::kAttribute
                         ? language_function(*ctx.base)
                         : "";
    if (fn == "If") return if_frame(s);
    hardware_only(ctx.span, fn, "with T." + fn + "(...)");
    if (fn == "Then" || fn == "Else")
      fail(ctx.span, "`with T." + fn + "():` belongs directly inside `with T.If(cond):`",
           "write with T.If(cond):\n    with T.Then(): ...\n    with T.Else(): ...");
    return kernel_statement(s);
  }

  // TVM script's `with T.If(cond): with T.Then(): A  with T.Else(): B` is `if cond: A
  // else: B`; the If holds exactly one Then, then at most one Else.
  Stmt if_frame(const AstStmt& s) {
    const AstExpr& ctx = *s.value;
    auto a = bind_args(ctx, "T.If", {"condition"}, 1);
    if (s.target) fail(s.target->span, "`with T.If(...)` binds no name");
    const AstStmt* then_frame = nullptr;
    const AstStmt* else_frame = nullptr;
    for (const auto& st : s.body) {
      if (st->kind == AstStmtKind::kPass ||
          (st->kind == AstStmtKind::kExpr && st->value->kind == AstKind::kString))
        continue;
      std::string fn = st->kind == AstStmtKind::kWith && st->value->kind == AstKind::kCall &&
                               st->value->base->kind == AstKind::kAttribute
                           ? language_function(*st->value->base)
                           : "";
      if (fn == "Then" && !then_frame && !else_frame) {
        then_frame = st.get();
      } else if (fn == "Else" && then_frame && !else_frame) {
        else_frame = st.get();
      } else {
        fail(st->span,
             fn == "Then" || fn == "Else"
                 ? "`with T." + fn + "():` is out of place in this `with T.If(...)`"
                 : std::string("only `with T.Then():` and `with T.Else():` may appear directly "
                               "inside `with T.If(...)`"),
             "write with T.If(cond):\n    with T.Then(): ...\n    with T.Else(): ...");
      }
      bind_args(*st->value, "T." + fn, {}, 0);
      if (st->target) fail(st->target->span, "`with T." + fn + "()` binds no name");
    }
    if (!then_frame)
      fail(s.span, "`with T.If(...)` has no `with T.Then():`",
           "put the guarded statements in `with T.Then():` inside the T.If");
    Expr cond = expr(*a[0]);
    Stmt then_case = block(then_frame->body, then_frame->span);
    Stmt else_case = else_frame ? block(else_frame->body, else_frame->span) : Stmt();
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

  // Whether `body` holds a `with T.Kernel(...)` (at any depth of its statements).
  bool launches_kernel(const AstBlock& body) const {
    for (const auto& st : body) {
      if (st->kind == AstStmtKind::kWith && st->value && st->value->kind == AstKind::kCall &&
          st->value->base->kind == AstKind::kAttribute &&
          language_function(*st->value->base) == "Kernel")
        return true;
      if (launches_kernel(st->body) || launches_kernel(st->orelse)) return true;
    }
    return false;
  }

  // `for i in range(rounds):` around T.Kernel launches in the function itself (TileLang's
  // multi-pass cumsum): the host runs the launches one after another, so the loop is
  // unrolled here into one launch per iteration, `i` a constant in each. Its trip
  // count must be a constant (at most kMaxUnrolledLaunchLoop).
  static constexpr int64_t kMaxUnrolledLaunchLoop = 256;
  void unrolled_launches(const AstStmt& s, BlockAccumulator& acc) {
    const AstExpr& iter = *s.value;
    bool range = iter.kind == AstKind::kCall && iter.base->kind == AstKind::kName &&
                 iter.base->name == "range" && !lookup("range");
    bool serial = iter.kind == AstKind::kCall && iter.base->kind == AstKind::kAttribute &&
                  language_function(*iter.base) == "serial";
    const char* hint =
        "a loop around T.Kernel launches is unrolled into one launch per iteration: write "
        "`for i in range(n):` with n a constant (a factory size or flag), or put the loop "
        "inside the T.Kernel";
    if (!(range || serial) || !iter.keywords.empty() || iter.children.empty() ||
        iter.children.size() > 3)
      fail(iter.span, "a loop around T.Kernel launches must be range(...) or T.serial(...)", hint);
    if (s.target->kind != AstKind::kName)
      fail(s.target->span, "a loop around T.Kernel launches binds one name", hint);
    std::vector<int64_t> args;
    for (const auto& c : iter.children) {
      Expr v = expr(*c);
      const auto* i = v.as<IntImmNode>();
      if (!i)
        fail(c->span, "the trip count of a loop around T.Kernel launches must be a constant", hint);
      args.push_back(i->value);
    }
    int64_t begin = args.size() > 1 ? args[0] : 0;
    int64_t end = args.size() > 1 ? args[1] : args[0];
    int64_t step = args.size() > 2 ? args[2] : 1;
    if (step == 0) fail(iter.span, "the loop's step must not be zero");
    int64_t trips = step > 0 ? (end > begin ? (end - begin + step - 1) / step : 0)
                             : (begin > end ? (begin - end - step - 1) / -step : 0);
    if (trips > kMaxUnrolledLaunchLoop)
      fail(iter.span,
           "a loop around T.Kernel launches runs " + std::to_string(trips) +
               " times; tilec unrolls at most " + std::to_string(kMaxUnrolledLaunchLoop),
           hint);
    for (int64_t t = 0, v = begin; t < trips; ++t, v += step) {
      scopes_.emplace_back();
      scopes_.back()[s.target->name] = {
          Binding::kConst, with_span(make_int(v), s.target->span), "", {}};
      for (const auto& st : s.body) statement(*st, acc);
      scopes_.pop_back();
    }
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
    static const std::set<std::string> loops = {"range",          "Parallel",   "serial",
                                                "Pipelined",      "vectorized", "unroll",
                                                "thread_binding", "grid"};
    if (!loops.count(fn)) fail(iter.span, "unsupported loop iterable", kSupportedLoops);
    const std::string q = fn == "range" ? "range" : "T." + fn;
    auto targets = loop_targets(*s.target);
    if (fn != "Parallel" && fn != "grid" && targets.size() != 1)
      fail(s.target->span, q + " binds one loop variable, not " + std::to_string(targets.size()),
           "use `for i, j in T.Parallel(M, N)` for a loop nest");

    if (fn == "Parallel" || fn == "grid") {
      // annotations / loop_layout / coalesced_width steer GPU thread mapping only.
      for (const auto& kw : iter.keywords)
        if (kw.name != "annotations" && kw.name != "loop_layout" && kw.name != "coalesced_width")
          fail(kw.span, q + " got an unexpected keyword argument '" + kw.name + "'",
               "accepted: extents, then annotations=, loop_layout=, coalesced_width=");
      if (iter.children.empty()) fail(iter.span, q + " needs at least one extent");
      if (iter.children.size() != targets.size())
        fail(s.target->span, q + " has " + std::to_string(iter.children.size()) +
                                 " extent(s) but the loop binds " + std::to_string(targets.size()) +
                                 " variable(s)");
      std::vector<Expr> extents;
      for (const auto& c : iter.children) extents.push_back(expr(*c));
      return loop_nest(s, targets, extents, fn == "grid" ? ForKind::kSerial : ForKind::kParallel, 1,
                       0, "");
    }

    Expr begin = make_int(0), end;
    int64_t step = 1;
    int num_stages = 0;
    std::string thread;
    ForKind kind = ForKind::kSerial;
    std::optional<PipelineScheduleArgs> schedule;
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
      if (fn == "Pipelined")
        names = {"start", "stop", "num_stages", "order", "stage", "sync", "group"};
      if (fn == "thread_binding") names.push_back("thread");
      if (fn == "serial" || fn == "unroll") names.push_back("step");
      names.push_back("annotations");  // hints for the GPU code generator; no effect on results
      if (fn == "unroll") names.push_back("explicit");
      auto a = bind_args(iter, q, names, 1);
      if (fn == "Pipelined") schedule = pipeline_schedule_lists(a);
      if ((fn == "serial" || fn == "unroll") && a[2]) {
        step = int_arg(*a[2], "step");
        if (step == 0) fail(a[2]->span, "the step must not be zero");
      }
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
    if (kind == ForKind::kThreadBinding && in_kernel_)
      return thread_binding_loop(s, iter, thread, begin, end);
    Stmt loop = loop_nest(s, targets, {end}, kind, step, num_stages, thread, begin);
    if (schedule && !schedule->schedule.empty()) loop = with_pipeline_schedule(loop, *schedule);
    return loop;
  }

  // T.Pipelined's order= / stage= / sync= / group= (pipeline_schedule.h), read as
  // constants: literal lists or names bound to them (factory parameters, -D order=[0,1]).
  struct PipelineScheduleArgs {
    PipelineSchedule schedule;
    Span order_span, stage_span, list_span;  // where to point at a length or range error
  };
  PipelineScheduleArgs pipeline_schedule_lists(const BoundArgs& a) {
    PipelineScheduleArgs out;
    auto ints = [&](const Binding& b, const AstExpr& at, const std::string& what) {
      std::vector<int64_t> v;
      if (b.kind == Binding::kNone) return v;
      if (b.kind != Binding::kTuple)
        fail(at.span, "T.Pipelined's " + what + " is a list of integers",
             "write " + what + "=[0, 1, 2] (one entry per statement of the loop body)");
      for (const Binding& item : b.items) {
        const auto* i = item.kind == Binding::kConst ? item.value.as<IntImmNode>() : nullptr;
        if (!i || item.value.dtype().is_bool())
          fail(at.span, "T.Pipelined's " + what + " is a list of integers, but an entry is not",
               "write " + what + "=[0, 1, 2] (one entry per statement of the loop body)");
        v.push_back(i->value);
      }
      return v;
    };
    auto lists = [&](const Binding& b, const AstExpr& at, const std::string& what) {
      std::vector<std::vector<int64_t>> v;
      if (b.kind == Binding::kNone) return v;
      if (b.kind != Binding::kTuple)
        fail(at.span, "T.Pipelined's " + what + " is a list of lists of statement indices",
             "write " + what + "=[[0, 1], [2]]");
      for (const Binding& item : b.items) v.push_back(ints(item, at, what + " entry"));
      return v;
    };
    if (a[3]) {
      out.schedule.order = ints(const_value(*a[3], "order"), *a[3], "order");
      out.order_span = a[3]->span;
    }
    if (a[4]) {
      out.schedule.stage = ints(const_value(*a[4], "stage"), *a[4], "stage");
      out.stage_span = a[4]->span;
    }
    if (a[5]) {
      out.schedule.sync = lists(const_value(*a[5], "sync"), *a[5], "sync");
      out.list_span = a[5]->span;
    }
    if (a[6]) {
      out.schedule.group = lists(const_value(*a[6], "group"), *a[6], "group");
      out.list_span = a[6]->span;
    }
    return out;
  }

  // Records a validated schedule on the pipelined loop; without num_stages= the depth is
  // max(stage) + 1, as in TileLang.
  Stmt with_pipeline_schedule(const Stmt& loop, const PipelineScheduleArgs& args) {
    auto n = copy_node(loop.as<ForNode>());
    PipelineBodyCount count = count_pipeline_statements(n->body);
    PipelineSchedule sched = args.schedule;
    int64_t k = count.scheduled;
    // Older TileLang code also gave the loop body's scalar bindings entries.
    if (!sched.order.empty() && int64_t(sched.order.size()) != k &&
        int64_t(sched.order.size()) == count.with_bindings)
      k = count.with_bindings;
    if (std::optional<std::string> why = pipeline_schedule_error(sched, k)) {
      Span at = why->rfind("stage", 0) == 0   ? args.stage_span
                : why->rfind("order", 0) == 0 ? args.order_span
                                              : args.list_span;
      if (!at.known()) at = loop->span;
      fail(at, "T.Pipelined: " + *why,
           "order and stage have one entry per statement of the loop body (copies, gemms, "
           "nested loops, ifs; not scalar bindings), order a permutation of 0.." +
               std::to_string(k > 0 ? k - 1 : 0));
    }
    if (!n->num_stages) n->num_stages = int(sched.depth());
    pipeline_schedules_[{loop->span.line, loop->span.col}] = std::move(sched);
    return Stmt(n);
  }

  // The function with its pipelined loops' schedules as attributes (pipeline_schedule.h),
  // found by the loops' source places (a macro expanded twice repeats its schedule).
  PrimFunc with_pipeline_schedules(PrimFunc fn) const {
    // The gemms' warp policies go with them by index (gemm_policy.h; gemms are leaves, so
    // the post-order visit meets them in source order): Square is the default.
    std::vector<std::pair<std::string, std::string>> policies;
    int64_t gemms = 0;
    post_order_visit(fn->body, [&](const Stmt* s, const Expr*) {
      const auto* g = s ? s->as<GemmNode>() : nullptr;
      if (!g) return;
      int64_t k = gemms++;
      if (!g->span.known()) return;
      auto it = gemm_policies_.find({g->span.line, g->span.col});
      if (it != gemm_policies_.end() && it->second != GemmWarpPolicy::kSquare)
        policies.emplace_back(gemm_policy_attr(k), to_string(it->second));
    });
    for (const auto& [key, value] : policies) fn = with_attr(fn, key, value);
    std::vector<const ForNode*> loops = pipelined_loops(fn->body);
    for (size_t k = 0; k < loops.size(); ++k) {
      auto it = pipeline_schedules_.find({loops[k]->span.line, loops[k]->span.col});
      if (it != pipeline_schedules_.end())
        fn = with_attr(fn, pipeline_schedule_attr(k), format_pipeline_schedule(it->second));
    }
    return fn;
  }

  // `for tx in T.thread_binding(128, thread="threadIdx.x"):` inside a T.Kernel binds `tx`
  // to the kernel's thread index along that axis (its extent must be the kernel's), and
  // the body is per-thread code of the block.
  Stmt thread_binding_loop(const AstStmt& s, const AstExpr& iter, const std::string& thread,
                           const Expr& begin, const Expr& end) {
    AstExpr tag;
    tag.kind = AstKind::kString;
    tag.name = thread;
    tag.span = iter.span;
    auto [is_thread, d] = launch_tag(tag);
    const auto* n = as_const_int(end);
    if (!is_thread || !is_const_int(begin, 0) || !n ||
        (d < kernel_threads_.size() ? kernel_threads_[d] != *n : *n != 1))
      fail(iter.span,
           "T.thread_binding inside a T.Kernel binds a thread axis from 0 to the kernel's extent "
           "(threads=" +
               threads_text() + ")",
           "write for tx in T.thread_binding(" +
               (kernel_threads_.empty() ? std::string("N") : std::to_string(kernel_threads_[0])) +
               ", thread=\"threadIdx.x\"), or use T.get_thread_binding(d)");
    scopes_.emplace_back();
    thread_name_hint_ = s.target->name;
    Expr v = d < kernel_threads_.size() ? thread_var(int64_t(d), s.target->span, "T.thread_binding")
                                        : make_int(0);
    thread_name_hint_.clear();
    bind_local(s.target->name, {Binding::kVar, v, "", {}}, s.target->span);
    Stmt body = block(s.body, s.span);
    scopes_.pop_back();
    return body;
  }

  Stmt loop_nest(const AstStmt& s, const std::vector<const AstExpr*>& targets,
                 const std::vector<Expr>& extents, ForKind kind, int64_t step, int num_stages,
                 const std::string& thread, Expr begin = make_int(0)) {
    scopes_.emplace_back();
    std::vector<Var> vars;
    for (size_t k = 0; k < targets.size(); ++k) {
      const AstExpr* t = targets[k];
      // docs/semantics.md "Integer widths": the variable's type holds every value it takes.
      Expr lo = targets.size() == 1 ? begin : make_int(0);
      Var v = make_var(t->name, loop_var_dtype(lo, extents[k], step), t->span);
      bind_loop_var(t->name, {Binding::kVar, v, "", {}}, t->span);
      vars.push_back(v);
    }
    Stmt body = block(s.body, s.span);
    scopes_.pop_back();
    for (size_t k = vars.size(); k-- > 0;) {
      Expr lo = as_index(vars.size() == 1 ? begin : make_int(0), vars[k].dtype());
      Expr hi = as_index(extents[k], vars[k].dtype());
      body = guarded(s.span, [&] { return for_loop(vars[k], lo, hi, body, kind, step, s.span); });
      if (num_stages || !thread.empty()) {
        auto n = copy_node(body.as<ForNode>());
        n->num_stages = num_stages;
        n->thread_tag = thread;
        body = Stmt(n);
      }
    }
    return body;
  }

  // A loop bound in the loop variable's dtype (a widened constant stays a constant).
  static Expr as_index(const Expr& e, DataType t) {
    if (e.dtype() == t) return e;
    if (const int64_t* c = as_const_int(e)) return make_int(*c, t);
    return e.dtype().bits < t.bits ? cast(t, e) : e;
  }

  // T.get_thread_binding(d): the kernel's thread index along axis d, created on first use
  // (named after the name it is assigned to, when it is).
  Expr thread_var(int64_t d, Span span, const std::string& what) {
    if (!in_kernel_)
      fail(span, what + " is only meaningful inside a T.Kernel",
           "bind thread indices inside `with T.Kernel(..., threads=N):`");
    if (d < 0 || d >= int64_t(kernel_threads_.size()))
      fail(span,
           "the kernel has " + std::to_string(kernel_threads_.size()) +
               " thread dimension(s) (threads=" + threads_text() + "); " + what + " names axis " +
               std::to_string(d),
           "give T.Kernel threads=(x, y, z) with as many extents as thread axes used");
    Var& v = kernel_thread_vars_[size_t(d)];
    if (!v) {
      std::string name =
          thread_name_hint_.empty() ? default_thread_name(size_t(d)) : thread_name_hint_;
      v = make_var(name, DataType::Int32(), span);
    }
    return v;
  }
  static std::string default_thread_name(size_t d) { return std::string("threadIdx_") + "xyz"[d]; }
  std::string threads_text() const {
    std::string t;
    for (size_t i = 0; i < kernel_threads_.size(); ++i)
      t += (i ? ", " : "") + std::to_string(kernel_threads_[i]);
    return kernel_threads_.size() == 1 ? t : "(" + t + ")";
  }

  // "threadIdx.y" -> {true, 1}; "blockIdx.z" -> {false, 2}.
  std::pair<bool, size_t> launch_tag(const AstExpr& tag) {
    static const char* const kTags[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                        "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};
    if (tag.kind == AstKind::kString)
      for (size_t i = 0; i < 6; ++i)
        if (tag.name == kTags[i]) return {i < 3, i % 3};
    fail(tag.span, "T.launch_thread's first argument names a thread or block axis",
         "one of \"threadIdx.x\", \"threadIdx.y\", \"threadIdx.z\", \"blockIdx.x\", "
         "\"blockIdx.y\", \"blockIdx.z\"");
  }

  // T.launch_thread("threadIdx.x", n) inside a T.Kernel (explicit or implicit): the
  // kernel's index along that axis; n must be the kernel's extent there.
  Expr launch_thread(const AstExpr& e) {
    auto a = bind_args(e, "T.launch_thread", {"thread", "extent"}, 2);
    auto [is_thread, d] = launch_tag(*a[0]);
    Expr extent = expr(*a[1]);
    if (!in_kernel_)
      fail(
          e.span,
          "T.launch_thread is only meaningful inside a T.Kernel or at the top of a kernel function",
          "write it at the top level of the @T.prim_func body, or inside `with T.Kernel(...)`");
    const auto* n = as_const_int(extent);
    if (is_thread) {
      if (!n) fail(a[1]->span, "the thread extent of T.launch_thread must be a constant integer");
      if (d >= kernel_threads_.size() && *n == 1) return make_int(0);
      if (d >= kernel_threads_.size() || kernel_threads_[d] != *n)
        fail(e.span,
             "T.launch_thread(\"" + a[0]->name + "\", " + std::to_string(*n) +
                 ") does not match the kernel's threads=" + threads_text(),
             "launch the same extent T.Kernel(..., threads=...) gives that axis");
      return thread_var(int64_t(d), e.span, "T.launch_thread");
    }
    if (d >= kernel_block_vars_.size() && n && *n == 1) return make_int(0);
    if (d >= kernel_block_vars_.size())
      fail(e.span, "the kernel has " + std::to_string(kernel_block_vars_.size()) +
                       " grid dimension(s); T.launch_thread(\"" + a[0]->name +
                       "\", ...) names none of them");
    if (const auto* g = as_const_int(kernel_grid_[d]); g && n && *g != *n)
      fail(e.span, "T.launch_thread(\"" + a[0]->name + "\", " + std::to_string(*n) +
                       ") does not match the kernel's grid extent " + std::to_string(*g));
    return kernel_block_vars_[d];
  }

  // A function body written TIR-style, `bx = T.launch_thread("blockIdx.x", 8)` and
  // `tx = T.launch_thread("threadIdx.x", 128)` at its top level instead of a T.Kernel:
  // the whole body is one kernel whose grid and threads those launches give.
  static const AstExpr* top_level_launch(const AstStmt& st) {
    const AstExpr* v = st.value.get();
    if (!v || (st.kind != AstStmtKind::kAssign && st.kind != AstStmtKind::kExpr)) return nullptr;
    if (v->kind != AstKind::kCall || v->base->kind != AstKind::kAttribute ||
        v->base->name != "launch_thread")
      return nullptr;
    return v;
  }
  bool has_top_level_launch(const AstBlock& body) const {
    for (const auto& st : body)
      if (const AstExpr* v = top_level_launch(*st);
          v && language_function(*v->base) == "launch_thread")
        return true;
    return false;
  }
  Stmt implicit_kernel(const AstBlock& body, Span span) {
    auto n = std::make_shared<KernelNode>();
    n->span = span;
    std::vector<Expr> grid(3);
    std::vector<int64_t> threads(3, 0);
    std::vector<std::string> block_names(3), thread_names(3);
    for (const auto& st : body) {
      const AstExpr* v = top_level_launch(*st);
      if (!v || language_function(*v->base) != "launch_thread") continue;
      auto a = bind_args(*v, "T.launch_thread", {"thread", "extent"}, 2);
      auto [is_thread, d] = launch_tag(*a[0]);
      Expr extent = expr(*a[1]);
      std::string name = st->kind == AstStmtKind::kAssign && st->target->kind == AstKind::kName
                             ? st->target->name
                             : "";
      if (is_thread) {
        const auto* c = as_const_int(extent);
        if (!c || *c < 1 || *c > 4096)
          fail(a[1]->span,
               "the thread extent of T.launch_thread must be a constant between 1 and 4096");
        if (threads[d]) fail(v->span, "T.launch_thread(\"" + a[0]->name + "\") is launched twice");
        threads[d] = *c;
        thread_names[d] = name;
      } else {
        if (!extent.dtype().is_integer())
          fail(a[1]->span, "grid extents must be integers, not " + extent.dtype().str());
        if (grid[d]) fail(v->span, "T.launch_thread(\"" + a[0]->name + "\") is launched twice");
        grid[d] = extent;
        block_names[d] = name;
      }
    }
    size_t grid_dims = 1, thread_dims = 1;
    for (size_t d = 0; d < 3; ++d) {
      if (grid[d]) grid_dims = d + 1;
      if (threads[d]) thread_dims = d + 1;
    }
    scopes_.emplace_back();
    for (size_t d = 0; d < grid_dims; ++d) {
      n->grid.push_back(grid[d] ? grid[d] : make_int(1));
      std::string name =
          block_names[d].empty() ? std::string("blockIdx_") + "xyz"[d] : block_names[d];
      n->block_vars.push_back(make_var(name, DataType::Int32(), span));
    }
    for (size_t d = 0; d < thread_dims; ++d) n->threads.push_back(threads[d] ? threads[d] : 1);
    return kernel_body(n, body, span, thread_names);
  }

  // Lowers `body` as the body of kernel `n` (grid, threads and block vars set).
  Stmt kernel_body(const std::shared_ptr<KernelNode>& n, const AstBlock& body, Span span,
                   const std::vector<std::string>& thread_names = {}) {
    in_kernel_ = true;
    kernel_block_vars_ = n->block_vars;
    kernel_grid_ = n->grid;
    kernel_threads_ = n->threads;
    kernel_thread_vars_.assign(n->threads.size(), Var());
    for (size_t d = 0; d < thread_names.size() && d < n->threads.size(); ++d)
      if (!thread_names[d].empty())
        kernel_thread_vars_[d] = make_var(thread_names[d], DataType::Int32(), span);
    kernel_swizzle_.reset();
    n->body = block(body, span);
    bool per_thread = false;
    for (const auto& v : kernel_thread_vars_) per_thread = per_thread || bool(v);
    if (per_thread) {
      for (size_t d = 0; d < kernel_thread_vars_.size(); ++d)
        if (!kernel_thread_vars_[d])
          kernel_thread_vars_[d] = make_var(default_thread_name(d), DataType::Int32(), span);
      n->body = bind_threads(kernel_thread_vars_, n->threads, n->body, span);
    }
    in_kernel_ = false;
    kernel_block_vars_.clear();
    kernel_grid_.clear();
    kernel_threads_.clear();
    kernel_thread_vars_.clear();
    scopes_.pop_back();
    if (kernel_swizzle_) {
      BlockSwizzle swizzle = *std::exchange(kernel_swizzle_, {});
      return apply_block_swizzle(
          *n, swizzle, [&](BinaryOp op, Expr a, Expr b) { return binary_op(op, a, b, span); });
    }
    return Stmt(n);
  }

  Stmt kernel_statement(const AstStmt& s) {
    const AstExpr& ctx = *s.value;
    if (ctx.kind != AstKind::kCall || ctx.base->kind != AstKind::kAttribute ||
        language_function(*ctx.base) != "Kernel")
      fail(ctx.span, "unsupported 'with' statement",
           "the only context is `with T.Kernel(...) as (bx, by):`");
    if (in_kernel_)
      fail(s.span, "T.Kernel cannot be nested", "a function launches one kernel grid at a time");
    if (ctx.children.size() > 3)
      fail(ctx.span,
           "T.Kernel takes 0 to 3 grid extents, got " + std::to_string(ctx.children.size()));
    auto n = std::make_shared<KernelNode>();
    n->span = s.span;
    for (const auto& c : ctx.children) {
      Expr g = expr(*c);
      if (!g.dtype().is_integer())
        fail(c->span, "grid extents must be integers, not " + g.dtype().str());
      n->grid.push_back(g);
    }
    if (n->grid.empty()) n->grid.push_back(make_int(1));  // T.Kernel(threads=n): one block
    n->threads = {128};
    for (const auto& kw : ctx.keywords) {
      if (kw.name == "is_cpu") continue;  // every tilec target runs the same grid
      hardware_only(kw.span, "Kernel." + kw.name, "T.Kernel(" + kw.name + "=...)");
      if (kw.name != "threads")
        fail(kw.span, "T.Kernel got an unexpected keyword argument '" + kw.name + "'",
             "accepted: grid extents, then threads=N or threads=(x, y, z), is_cpu=");
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
    std::vector<AstExpr> implicit;  // `with T.Kernel(...):` binds no names
    std::vector<const AstExpr*> targets;
    if (s.target) {
      targets = loop_targets(*s.target);
    } else {
      static const char* const kNames[] = {"blockIdx_x", "blockIdx_y", "blockIdx_z"};
      implicit.resize(n->grid.size());
      for (size_t d = 0; d < n->grid.size(); ++d) {
        implicit[d].kind = AstKind::kName;
        implicit[d].name = kNames[d];
        implicit[d].span = ctx.span;
        targets.push_back(&implicit[d]);
      }
    }
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
    return kernel_body(n, s.body, s.span);
  }

  std::string_view source_;
  const ParseOptions& options_;
  const std::string& entry_;  // --entry NAME; "" = every kernel of a file without factories
  std::map<std::string, int64_t> eager_outputs_;  // eager jit function -> its T.empty count
  std::vector<std::unordered_map<std::string, Binding>> scopes_;
  std::vector<std::string> constant_order_;
  std::set<std::string> used_defines_;
  std::unordered_map<std::string, Span> out_of_scope_;
  bool in_kernel_ = false;
  std::optional<BlockSwizzle> kernel_swizzle_;  // T.use_swizzle of the kernel being lowered
  std::map<const BufferNode*, std::string> reducer_ops_;  // T.alloc_reducer buffers -> op
  ViewOperands view_operands_;  // views given to the tile op being lowered
  // The @T.prim_func definitions of the factory being run, and the one lowered so far.
  std::map<std::string, const AstStmt*> factory_kernels_;
  std::string factory_first_kernel_;
  std::string entry_factory_;        // the factory being lowered: its kernels carry its name
  std::vector<size_t> macro_bases_;  // per macro being expanded: its arguments' scope
  // T.Pipelined schedules by the loop's source place (line, column).
  std::map<std::pair<int, int>, PipelineSchedule> pipeline_schedules_;
  std::map<std::pair<int, int>, GemmWarpPolicy> gemm_policies_;
  struct VectorLane {
    Var lane;
    int64_t lanes;
  };
  std::optional<VectorLane> vector_lane_;  // the lane loop of a T.Ramp store being lowered
  int helper_depth_ = 0;
  const AstStmt* first_helper_ = nullptr;  // a module-level def that is no kernel
  // Names bound by skipped module-level statements, with the reason (see lookup).
  std::unordered_map<std::string, std::shared_ptr<const SourceError>> opaque_names_;
  std::vector<Var> kernel_block_vars_;   // of the T.Kernel being lowered
  std::vector<Expr> kernel_grid_;        // its grid extents
  std::vector<int64_t> kernel_threads_;  // its threads= extents
  std::vector<Var> kernel_thread_vars_;  // its thread indices, created on first use
  std::string thread_name_hint_;         // the name a thread binding is assigned to
};

}  // namespace

IRModule lower_module(const AstModule& module, std::string_view source, const ParseOptions& options,
                      const std::string& entry) {
  return Lowering(source, options, entry).run(module);
}

}  // namespace tilec::ir::frontend
