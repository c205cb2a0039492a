// Module level: imports, module constants and -D overrides, the kinds of `def`, the
// entry choice, kernels' declared outputs.
#include "lowering.h"

namespace tilec::frontend {

IRModule Lowering::run(const AstModule& module) {
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
      case AstStmtKind::kWhile:
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

// A module-level if/for/with other than the __main__ guard is not run; the names it
// assigns raise, when kernel code uses them, an error saying so.
void Lowering::skip_module_block(const AstStmt& s) {
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

void Lowering::import_statement(const AstStmt& s) {
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
void Lowering::module_constant(const AstStmt& s) {
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

void Lowering::module_constant_value(const AstStmt& s) {
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

Binding Lowering::define_value(const std::string& name, const std::string& text,
                               const Binding& original) {
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
      return "; " + text + " is a float in Python: write the integer in digits, -D " + name + "=" +
             std::to_string(static_cast<int64_t>(d));
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
Binding Lowering::define_sequence(const std::string& name, const std::string& text, size_t& pos) {
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
        fail({}, "-D " + name + "=" + text + ": an empty item", "write -D " + name + "=[0, 1, 2]");
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

void Lowering::check_unused_defines() const {
  for (const auto& [name, value] : options_.defines) {
    if (!used_defines_.count(name) && opaque_names_.count(name) && !find_binding(name))
      raise_skipped(*opaque_names_.at(name), name);
    if (!used_defines_.count(name))
      fail({}, "-D " + name + "=" + value + ": the file defines no constant '" + name + "'",
           "constants it defines: " + module_constant_names());
  }
}

// `@tilelang.jit(out_idx=...)` on a kernel or factory names the parameters the caller
// gets back instead of passing (negative indices count from the end, as in TileLang);
// an eager jit function's T.empty outputs are its trailing parameters. Recorded as
// the function attribute kOutputIndicesAttr, e.g. "2" or "1,2", in ascending order.
PrimFunc Lowering::with_declared_outputs(const PrimFunc& fn, const AstStmt& def) {
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

// What a `def` is, from its decorators and body: @T.prim_func -> a kernel; @T.macro ->
// a macro; a function defining a @T.prim_func inside -> a factory; @tilelang.jit on a
// function whose body is the kernel itself -> eager jit; anything else -> a helper.
DefKind Lowering::def_kind(const AstStmt& s) {
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
bool Lowering::is_jit_decorator(const AstExpr& target) const {
  static const std::set<std::string> names = {"jit", "lazy_jit", "autotune", "simplify_prim_func"};
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
bool Lowering::defines_kernel(const AstBlock& body, std::set<std::string> local_aliases) {
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

bool Lowering::is_main_guard(const AstStmt& s) {
  const AstExpr& c = *s.value;
  return c.kind == AstKind::kCompare && c.children.size() == 2 &&
         c.children[0]->kind == AstKind::kName && c.children[0]->name == "__name__";
}

PrimFunc Lowering::function(const AstStmt& s, const std::string& name) {
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
           "annotate it: " + p.name + ": T.Tensor((M, N), \"float32\") or " + p.name + ": T.int32");
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
AttrValue Lowering::scalar_default(const AstExpr& e, const Var& var) {
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
void Lowering::require_kernel(const Stmt& body, const AstStmt& s, const std::string& name) {
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

bool Lowering::kernels_at_top_level(const Stmt& st) {
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
int Lowering::count_kernels(const Stmt& st) {
  struct Count : StmtVisitor {
    int n = 0;
    void visit_kernel(const KernelNode*) override { ++n; }
  } count;
  count.visit(st);
  return count.n;
}

IRModule lower_module(const AstModule& module, std::string_view source, const ParseOptions& options,
                      const std::string& entry) {
  return Lowering(source, options, entry).run(module);
}

}  // namespace tilec::frontend
