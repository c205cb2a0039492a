// Expressions: constant folding, operators, names, literals and T.* value calls.
#include "lowering.h"

namespace tilec::frontend {

// The BinaryOp a Python operator token spells ("+", "//", "<=", "and"): the inverse of
// to_string(BinaryOp), so the parser and the printer spell operators alike.
BinaryOp binary_op_for(std::string_view token) {
  for (int i = 0; i <= int(BinaryOp::kShr); ++i) {
    if (token == to_string(BinaryOp(i))) return BinaryOp(i);
  }
  throw IRError("unknown binary operator '" + std::string(token) + "'");
}

// Whether integer dtype `t` holds v exactly.
bool integer_fits(int64_t v, DataType t) {
  if (!t.is_integer()) return false;
  if (t.is_uint()) return v >= 0 && (t.bits >= 63 || v < (int64_t(1) << t.bits));
  return t.bits >= 64 || (v >= -(int64_t(1) << (t.bits - 1)) && v < (int64_t(1) << (t.bits - 1)));
}

bool fits_int32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}
// Constant operands fold with the IR core's arithmetic (tilec/ir/const_fold.h), the
// interpreter's. Python evaluates these at definition time with unbounded integers,
// so a result that does not fit its dtype, or a division by zero, is an error here
// rather than a wrapped value; bool arithmetic and narrower dtypes are left unfolded.
Expr Lowering::fold(const Expr& e, Span span) {
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
Expr Lowering::fold_math(const Expr& e, const CallNode& c, Span span) {
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
Expr Lowering::cast_value(DataType t, const Expr& v, Span span) {
  const auto* f = v.as<FloatImmNode>();
  if (f && t.is_integer() && t.lanes == 1 && std::isfinite(f->value)) {
    double whole = std::trunc(f->value);
    bool fits = t.is_uint()
                    ? whole >= 0 && whole < std::ldexp(1.0, t.bits)
                    : whole >= -std::ldexp(1.0, t.bits - 1) && whole < std::ldexp(1.0, t.bits - 1);
    if (fits) return with_span(make_int(float_to_integer(f->value, t), t), span);
  }
  return guarded(span, [&] { return cast(t, v, span); });
}

Expr Lowering::binary_op(BinaryOp op, Expr a, Expr b, Span span) {
  return fold(guarded(span, [&] { return binary(op, a, b, span); }), span);
}

Expr Lowering::negate(Expr a, Span span) {
  if (auto* i = a.as<IntImmNode>(); i && !a.dtype().is_bool()) {
    if (i->value == std::numeric_limits<int64_t>::min() ||
        (a.dtype() == DataType::Int32() && !fits_int32(-i->value)))
      fail(span, "integer overflow in a constant expression");
    return with_span(make_int(-i->value, a.dtype()), span);
  }
  if (auto* f = a.as<FloatImmNode>()) return with_span(make_float(-f->value, a.dtype()), span);
  return guarded(span, [&] { return unary(UnaryOp::kNeg, a, span); });
}

Expr Lowering::expr(const AstExpr& e) {
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

Expr Lowering::int_literal(const AstExpr& e) {
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

Expr Lowering::name_expr(const AstExpr& e) {
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
      fail(e.span, "view '" + e.name + "' is used as a value", "index it, e.g. " + e.name + "[i]");
    case Binding::kKernel:
      fail(e.span, "'" + e.name + "' is a kernel, not a value", "return it from the factory");
  }
  fail(e.span, "unsupported name");
}

Expr Lowering::call_expr(const AstExpr& e) {
  if (std::optional<Expr> v = python_constant_call(e)) return *v;
  std::string fn;
  if (e.base->kind == AstKind::kName) {
    const std::string& name = e.base->name;
    if (name == "max" || name == "min" || name == "abs") {
      fn = name;
    } else if (!lookup(name)) {
      if (name == "range")
        fail(e.span, "range(...) is only allowed as the iterable of a for loop", supported_loops());
      if (name == "float" || name == "int" || name == "bool")
        fail(e.span, "Python's " + name + "() is not supported",
             "use T.cast(x, dtype) or T.float32(x)");
      fail(e.base->span, "function '" + name + "' is not defined", supported_value_calls());
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
      fail(e.base->span, "'" + name + "' is not a function", supported_value_calls());
    }
  } else if (e.base->kind == AstKind::kAttribute) {
    fn = language_function(*e.base);
    if (fn.empty() && e.base->name == "cdiv" && e.base->base->kind == AstKind::kName) {
      const Binding* m = lookup(e.base->base->name);
      if (m && m->kind == Binding::kModule && m->text == "tilelang") {  // tilelang.cdiv
        no_keywords(e, "tilelang.cdiv");
        if (e.children.size() != 2) fail(e.span, "tilelang.cdiv takes 2 arguments");
        Expr a = expr(*e.children[0]), b = expr(*e.children[1]);
        Expr less =
            binary_op(BinaryOp::kSub, binary_op(BinaryOp::kAdd, a, b, e.span), make_int(1), e.span);
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
    fail(e.span, "only T.* functions can be called", supported_value_calls());
  }
  const std::string qualified = "T." + fn;
  hardware_only(e.span, fn);
  const Construct* row = ConstructTable::get().find(fn);
  if (!row && is_warp_exchange_prefix(fn)) row = ConstructTable::get().find("tvm_warp_shuffle");
  if (row && row->value) {
    ConstructCall call = bind_construct(*row, e, e.span);
    call.spelled = qualified;  // as written: a shfl* prefix shares tvm_warp_shuffle's row
    return (this->*row->value)(call);
  }
  if (auto t = DataType::parse(fn)) {
    no_keywords(e, qualified);
    if (e.children.size() != 1)
      fail(e.span, qualified + " takes 1 argument(s), got " + std::to_string(e.children.size()));
    std::vector<Expr> v = {expr(*e.children[0])};
    if (auto* i = v[0].as<IntImmNode>()) {
      if (t->is_float()) return with_span(make_float(double(i->value), *t), e.span);
      if (t->is_bool()) return with_span(make_bool(i->value != 0), e.span);
      return with_span(make_int(i->value, *t), e.span);
    }
    if (auto* f = v[0].as<FloatImmNode>()) return with_span(make_const(*t, f->value), e.span);
    return guarded(e.span, [&] { return cast(*t, v[0], e.span); });
  }
  if (row) wrong_role(*row, e, ConstructRole::kValue);
  std::string near = ConstructTable::get().did_you_mean(fn);
  fail(e.base->span, "unknown function " + qualified,
       (near.empty() ? "" : near + " ") + supported_value_calls());
}

// T.<name> used where its role does not fit: a statement or an allocation as a value,
// a value as a statement, a loop iterable or a frame elsewhere.
void Lowering::wrong_role(const Construct& c, const AstExpr& e, ConstructRole wanted) {
  const std::string q = "T." + c.name;
  switch (c.role) {
    case ConstructRole::kStatement:
    case ConstructRole::kHint:
      fail(e.span, q + " is a statement, not a value", "call it on its own line");
    case ConstructRole::kValue:
      fail(e.span, q + " is a value, not a statement",
           "use it in an expression (x = " + q + "(...)); " + supported_statement_calls());
    case ConstructRole::kAllocation:
      fail(e.span, q + " must be assigned to a name", "write buf = " + q + "(...)");
    case ConstructRole::kLoop:
      fail(e.span, q + " is only allowed as the iterable of a for loop", supported_loops());
    case ConstructRole::kWith:
      fail(e.span, q + " is a with frame, not a " + std::string(role_name(wanted)),
           "write with " + q + "(...):");
    case ConstructRole::kModuleLevel:
      fail(e.span, q + " is only allowed at module level",
           "write M = T.symbolic(\"M\") at the top");
    case ConstructRole::kRefused:
      break;
  }
  fail(e.span, q + " is not supported here");
}

// Refuses T.<fn> when it is a Hopper/Blackwell-only construct (hardware_only.h).
void Lowering::hardware_only(Span span, const std::string& fn, const std::string& spelled) const {
  if (fn.empty()) return;
  if (const HardwareOnlyConstruct* c = find_hardware_only(fn))
    fail(span, hardware_only_message(spelled.empty() ? "T." + fn : spelled, *c),
         hardware_only_hint(*c));
}

}  // namespace tilec::frontend
