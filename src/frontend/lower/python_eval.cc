// The Python evaluation of factories, helpers and macros: parameters bound from -D,
// calls and defaults, constant statements and branches, constant values and tuples.
#include "lowering.h"

namespace tilec::frontend {

// Binds the parameters of a factory or helper from `source`; a missing one is an error
// naming it.
void Lowering::bind_parameters(const AstStmt& s, const std::vector<Binding>& args,
                               const std::map<std::string, Binding>& kwargs, ParamSource source,
                               const std::set<std::string>& skip) {
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
std::string Lowering::returned_kernel(const AstExpr& e) {
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
const AstExpr* Lowering::taken_side(const AstExpr& if_exp) {
  Binding test = const_value(*if_exp.children[1], "condition");
  const auto* t = test.kind == Binding::kConst ? test.value.as<IntImmNode>() : nullptr;
  return t ? if_exp.children[t->value ? 0 : 2].get() : nullptr;
}

PrimFunc Lowering::factory(const AstStmt& s) {
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
bool Lowering::same_size(const Expr& a, const Expr& b) {
  auto *va = a.as<VarNode>(), *vb = b.as<VarNode>();
  if (va || vb) return va && vb && va->name == vb->name;
  return structural_equal(a, b);
}

// `assert cond` outside a kernel: cond must be a constant, and true. As in TileLang
// (TVM's `bool(a == b)`), `a == b` / `a != b` of symbolic sizes is decided by whether
// the two sides are the same expression: `M, N = A.shape; assert M == M_` in a macro.
void Lowering::constant_assert(const AstStmt& st, const std::string& owner) {
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
void Lowering::constant_raise(const AstStmt& st, const std::string& owner) {
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
const AstBlock& Lowering::constant_branch(const AstStmt& st, const std::string& owner) {
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
std::optional<Binding> Lowering::run_constant_block(const AstBlock& body, const std::string& owner,
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
void Lowering::assign_constant(const AstExpr& target, const AstExpr& value) {
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
std::optional<bool> Lowering::string_compare(const AstExpr& e) {
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
std::optional<bool> Lowering::truthiness(const Binding& b) {
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

Binding Lowering::const_value(const AstExpr& e, const std::string& name) {
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
      if (e.ops[0] == "in" || e.ops[0] == "not in") return {Binding::kConst, membership(e), "", {}};
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
bool Lowering::is_tvm_te_var(const AstExpr& f) const {
  if (f.kind != AstKind::kAttribute || f.name != "var" || f.base->kind != AstKind::kAttribute ||
      f.base->name != "te" || f.base->base->kind != AstKind::kName)
    return false;
  const Binding* b = lookup(f.base->base->name);
  return b && b->kind == Binding::kModule && b->text == "tvm";
}

// T.symbolic("M") / T.dynamic("M", dtype) / T.const("M, N"): symbolic dims (a tuple of
// them for a list of names), or constants where -D gives their value.
Binding Lowering::symbolic(const AstExpr& e, const std::string& name) {
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

Binding Lowering::call_helper(const AstExpr& call, const Binding& helper) {
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
Binding Lowering::call_function(const AstStmt& def, const std::vector<Binding>& args,
                                const std::map<std::string, Binding>& kwargs, const Span& span,
                                bool returned_uncalled) {
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
bool Lowering::is_kernel_wrapper(const AstStmt& def) {
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
PrimFunc Lowering::nested_kernel(const AstExpr& e) {
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
const AstExpr* Lowering::autotuner_kernel(const AstExpr& e) {
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
Buffer Lowering::attribute_buffer(const AstExpr& e, const char* attr) const {
  if (e.kind != AstKind::kAttribute || e.name != attr || e.base->kind != AstKind::kName)
    return nullptr;
  const Binding* b = lookup(e.base->name);
  return b && (b->kind == Binding::kBuffer || b->kind == Binding::kVarBuffer) ? b->buffer : nullptr;
}

const Binding* Lowering::tuple_binding(const AstExpr& e) const {
  if (e.kind != AstKind::kName) return nullptr;
  const Binding* b = lookup(e.name);
  return b && b->kind == Binding::kTuple ? b : nullptr;
}

// t[i] for a constant i (negative counts from the end), whatever the item is.
const Binding& Lowering::tuple_entry(const Binding& t, const AstExpr& sub) {
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

Expr Lowering::tuple_item(const Binding& t, const AstExpr& sub) {
  const Binding& item = tuple_entry(t, sub);
  if (item.kind != Binding::kConst && item.kind != Binding::kVar)
    fail(sub.span, "this tuple item is not a number");
  return with_span(item.value, sub.span);
}

// A call of an @T.macro: its body is lowered in place, its parameters bound to the
// call's buffers and values (Python evaluates arguments at the call).
void Lowering::expand_macro(const AstExpr& call, const Binding& macro, BlockAccumulator& acc) {
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
std::unordered_map<std::string, Binding> Lowering::macro_arguments(const AstExpr& call,
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

}  // namespace tilec::frontend
