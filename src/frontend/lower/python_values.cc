// Python's constant functions and values in kernel code: math/numpy constants,
// builtins, isinstance, membership, any/all.
#include "lowering.h"

namespace tilec::frontend {

// The dotted path `e` names once module aliases are resolved (tl.cdiv with `import
// tilelang as tl` -> "tilelang.cdiv"), or "" when it is not rooted in a module.
std::string Lowering::python_path(const AstExpr& e) const {
  if (e.kind == AstKind::kName) {
    const Binding* b = lookup(e.name);
    return b && b->kind == Binding::kModule ? b->text : "";
  }
  if (e.kind != AstKind::kAttribute) return "";
  std::string base = python_path(*e.base);
  return base.empty() ? "" : base + "." + e.name;
}

PyNumber Lowering::constant_number(const AstExpr& e, const std::string& fn) {
  Expr v = expr(e);
  if (const auto* i = v.as<IntImmNode>()) return int64_t(i->value);
  if (const auto* f = v.as<FloatImmNode>()) return f->value;
  fail(e.span, fn + " is evaluated when the kernel is built and needs a constant here",
       "pass a factory parameter or a literal, or use the T.* function for kernel values");
}

Expr Lowering::number_expr(const PyNumber& v, Span span) {
  if (const auto* i = std::get_if<int64_t>(&v))
    return with_span(fits_int32(*i) ? make_int(*i) : make_int(*i, DataType::Int64()), span);
  return with_span(make_float(std::get<double>(v)), span);
}

// math.pi / DataType(dtype).bits / T.dtype(dtype).bits ...: a constant, else nullopt.
std::optional<Expr> Lowering::python_constant_attribute(const AstExpr& e) {
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
std::optional<Expr> Lowering::python_constant_call(const AstExpr& e) {
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
bool Lowering::call_python_constant_known(const std::string& path) {
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
std::optional<Expr> Lowering::python_builtin(const AstExpr& e) {
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
Binding Lowering::dict_item(const AstExpr& e) {
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
Expr Lowering::python_isinstance(const AstExpr& e) {
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
Expr Lowering::membership(const AstExpr& e) {
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

bool Lowering::same_constant(const Binding& a, const Binding& b, Span span) {
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

}  // namespace tilec::frontend
