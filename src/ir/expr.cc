#include "tilec/ir/expr.h"
#include "tilec/ir/warp_shuffle.h"

#include "tilec/ir/functor.h"
#include "tilec/ir/stmt.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

namespace tilec::ir {

Expr::Expr(int value) : node_(std::make_shared<IntImmNode>(DataType::Int32(), value)) {}
Expr::Expr(int64_t value) : node_(std::make_shared<IntImmNode>(DataType::Int64(), value)) {}
Expr::Expr(double value) : node_(std::make_shared<FloatImmNode>(DataType::Float32(), value)) {}

const char* to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSub: return "-";
    case BinaryOp::kMul: return "*";
    case BinaryOp::kDiv: return "/";
    case BinaryOp::kFloorDiv: return "//";
    case BinaryOp::kFloorMod: return "%";
    case BinaryOp::kMin: return "min";
    case BinaryOp::kMax: return "max";
    case BinaryOp::kEQ: return "==";
    case BinaryOp::kNE: return "!=";
    case BinaryOp::kLT: return "<";
    case BinaryOp::kLE: return "<=";
    case BinaryOp::kGT: return ">";
    case BinaryOp::kGE: return ">=";
    case BinaryOp::kAnd: return "and";
    case BinaryOp::kOr: return "or";
    case BinaryOp::kBitAnd: return "&";
    case BinaryOp::kBitOr: return "|";
    case BinaryOp::kBitXor: return "^";
    case BinaryOp::kShl: return "<<";
    case BinaryOp::kShr: return ">>";
  }
  return "?";
}
const char* to_string(UnaryOp op) { return op == UnaryOp::kNeg ? "-" : "not"; }
bool is_comparison(BinaryOp op) { return op >= BinaryOp::kEQ && op <= BinaryOp::kGE; }
bool is_logical(BinaryOp op) { return op == BinaryOp::kAnd || op == BinaryOp::kOr; }
bool is_bitwise(BinaryOp op) { return op >= BinaryOp::kBitAnd && op <= BinaryOp::kShr; }

Expr make_int(int64_t value, DataType dtype) {
  return Expr(std::make_shared<IntImmNode>(dtype, value));
}
Expr make_float(double value, DataType dtype) {
  return Expr(std::make_shared<FloatImmNode>(dtype, value));
}
Expr make_bool(bool value) { return make_int(value ? 1 : 0, DataType::Bool()); }
Expr make_const(DataType dtype, double value) {
  if (dtype.is_float()) return make_float(value, dtype);
  if (dtype.is_bool()) return make_bool(value != 0);
  return make_int(static_cast<int64_t>(value), dtype);
}
Expr make_zero(DataType dtype) { return make_const(dtype, 0); }

Var make_var(std::string name, DataType dtype, Span span) {
  auto node = std::make_shared<VarNode>(std::move(name), dtype);
  node->span = span;
  return Var(std::move(node));
}

namespace {

bool is_constant(const Expr& e) {
  return e.kind() == ExprKind::kIntImm || e.kind() == ExprKind::kFloatImm;
}

// The common type of two typed (non-constant) operands.
DataType promote(DataType a, DataType b) {
  if (a == b) return a;
  if (a.is_float() && b.is_float()) {
    if (a.bits != b.bits) return a.bits > b.bits ? a : b;
    return DataType::Float32();  // float16 with bfloat16
  }
  if (a.is_float()) return a;
  if (b.is_float()) return b;
  if (a.is_bool()) return b;
  if (b.is_bool()) return a;
  if (a.bits != b.bits) return a.bits > b.bits ? a : b;
  return a.is_uint() ? a : b;  // same width, mixed signedness: unsigned, as C does
}

Expr with_dtype(const Expr& e, DataType t) { return e.dtype() == t ? e : cast(t, e); }

}  // namespace

Expr binary(BinaryOp op, Expr a, Expr b, Span span) {
  if (!a || !b) throw IRError(std::string("operand of '") + to_string(op) + "' is undefined");
  DataType t;
  bool ca = is_constant(a), cb = is_constant(b);
  if (ca && !cb && !(a.dtype().is_float() && !b.dtype().is_float())) {
    t = b.dtype();
  } else if (cb && !ca && !(b.dtype().is_float() && !a.dtype().is_float())) {
    t = a.dtype();
  } else {
    t = promote(a.dtype(), b.dtype());
  }
  if (is_logical(op)) t = DataType::Bool();
  bool shift = op == BinaryOp::kShl || op == BinaryOp::kShr;
  if (is_bitwise(op) && !(t.is_integer() || (t.is_bool() && !shift))) {
    throw IRError(std::string("'") + to_string(op) + "' needs integer operands, not " +
                  a.dtype().str() + " and " + b.dtype().str());
  }
  if (op == BinaryOp::kDiv && !t.is_float()) {
    throw IRError("'/' on integer operands (" + a.dtype().str() + ", " + b.dtype().str() +
                  ") is not allowed: use '//' for floor division");
  }
  a = with_dtype(a, t);
  b = with_dtype(b, t);
  DataType result = is_comparison(op) || is_logical(op) ? DataType::Bool() : t;
  auto node = std::make_shared<BinaryNode>(result, op, std::move(a), std::move(b));
  node->span = span;
  return Expr(std::move(node));
}

Expr unary(UnaryOp op, Expr a, Span span) {
  if (!a) throw IRError("operand of unary operator is undefined");
  if (op == UnaryOp::kNot) a = with_dtype(a, DataType::Bool());
  DataType t = a.dtype();
  auto node = std::make_shared<UnaryNode>(t, op, std::move(a));
  node->span = span;
  return Expr(std::move(node));
}

Expr select(Expr cond, Expr true_value, Expr false_value, Span span) {
  if (!cond || !true_value || !false_value) throw IRError("if_then_else operand is undefined");
  // Reuse binary()'s promotion by typing a throwaway addition-free comparison.
  Expr probe = binary(BinaryOp::kMax, true_value, false_value);
  DataType t = probe.dtype();
  auto node = std::make_shared<SelectNode>(t, with_dtype(cond, DataType::Bool()),
                                           with_dtype(true_value, t), with_dtype(false_value, t));
  node->span = span;
  return Expr(std::move(node));
}

Expr cast(DataType dtype, Expr value, Span span) {
  if (!value) throw IRError("cast of an undefined expression");
  if (value.dtype() == dtype) return value;
  if (auto* i = value.as<IntImmNode>()) {
    if (dtype.is_float()) return make_float(double(i->value), dtype);
    if (dtype.is_bool()) return make_bool(i->value != 0);
    if (dtype.is_integer() && dtype.bits >= 32) return make_int(i->value, dtype);
  }
  if (auto* f = value.as<FloatImmNode>()) {
    if (dtype.is_float() && dtype.bits >= 32) return make_float(f->value, dtype);
  }
  auto node = std::make_shared<CastNode>(dtype, std::move(value));
  node->span = span;
  return Expr(std::move(node));
}

Expr load(Buffer buffer, std::vector<Expr> indices, Span span) {
  if (!buffer) throw IRError("load from an undefined buffer");
  if (int(indices.size()) != buffer->ndim()) {
    throw IRError("buffer '" + buffer->name + "' has " + std::to_string(buffer->ndim()) +
                  " dimensions but is indexed with " + std::to_string(indices.size()));
  }
  DataType t = buffer->dtype;
  auto node = std::make_shared<LoadNode>(t, std::move(buffer), std::move(indices));
  node->span = span;
  return Expr(std::move(node));
}

namespace {

// Every math intrinsic and how many arguments it takes, in the order docs list them.
const std::vector<std::pair<std::string, size_t>>& math_intrinsic_arities() {
  static const std::vector<std::pair<std::string, size_t>> table = {
      {"exp", 1},   {"exp2", 1},  {"exp10", 1}, {"expm1", 1}, {"log", 1},   {"log2", 1},
      {"log10", 1}, {"log1p", 1}, {"sqrt", 1},  {"rsqrt", 1}, {"tanh", 1},  {"sigmoid", 1},
      {"erf", 1},   {"sin", 1},   {"cos", 1},   {"tan", 1},   {"asin", 1},  {"acos", 1},
      {"atan", 1},  {"sinh", 1},  {"cosh", 1},  {"asinh", 1}, {"acosh", 1}, {"atanh", 1},
      {"abs", 1},   {"floor", 1}, {"ceil", 1},  {"trunc", 1}, {"round", 1}, {"nearbyint", 1},
      {"pow", 2},   {"atan2", 2}, {"fmod", 2},  {"hypot", 2}, {"copysign", 2},
      {"fma", 3},   {"max", 2},   {"min", 2}};
  return table;
}

}  // namespace

const std::vector<std::string>& math_intrinsic_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, arity] : math_intrinsic_arities()) out.push_back(name);
    return out;
  }();
  return names;
}
bool is_math_intrinsic(const std::string& name) {
  const auto& names = math_intrinsic_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

Expr call(const std::string& name, std::vector<Expr> args, Span span) {
  if (is_warp_shuffle_name(name)) {  // rebuilt by mutators like any intrinsic
    if (args.size() != 3) throw IRError("T." + name + " takes (value, lane, width)");
    return warp_shuffle(name, args[0], args[1], args[2], span);
  }
  const auto& arities = math_intrinsic_arities();
  auto it = std::find_if(arities.begin(), arities.end(),
                         [&](const auto& entry) { return entry.first == name; });
  if (it == arities.end()) {
    std::string known;
    for (const auto& n : math_intrinsic_names()) known += (known.empty() ? "" : ", ") + n;
    throw IRError("unknown math function '" + name + "'; known: " + known);
  }
  if (args.size() != it->second) {
    throw IRError("T." + name + " takes " + std::to_string(it->second) + " argument(s), got " +
                  std::to_string(args.size()));
  }
  for (const auto& a : args)
    if (!a) throw IRError("argument of T." + name + " is undefined");
  if (name == "max") return binary(BinaryOp::kMax, args[0], args[1], span);
  if (name == "min") return binary(BinaryOp::kMin, args[0], args[1], span);
  // Common type of all arguments, by the binary promotion rules.
  Expr acc = args[0];
  for (size_t i = 1; i < args.size(); ++i) acc = binary(BinaryOp::kMax, acc, args[i]);
  DataType t = acc.dtype();
  if (name != "abs" && !t.is_float()) t = DataType::Float32();
  for (auto& a : args) a = with_dtype(a, t);
  auto node = std::make_shared<CallNode>(t, name, std::move(args));
  node->span = span;
  return Expr(std::move(node));
}

const char* to_string(CallKind kind) {
  switch (kind) {
    case CallKind::kIntrinsic: return "intrinsic";
    case CallKind::kExtern: return "extern";
    case CallKind::kBarrier: return "barrier";
    case CallKind::kAtomic: return "atomic";
  }
  return "?";
}

Expr call_extern(DataType dtype, const std::string& name, std::vector<Expr> args, Span span) {
  // The name is printed verbatim into C, so it must be an identifier.
  bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name)
    identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!identifier) {
    throw IRError("extern function name '" + name +
                  "' is not a C identifier (letters, digits and '_', not starting with a digit)");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]) {
      throw IRError("argument " + std::to_string(i) + " of extern call '" + name +
                    "' is undefined");
    }
  }
  auto node = std::make_shared<CallNode>(dtype, name, std::move(args), CallKind::kExtern);
  node->span = span;
  return Expr(std::move(node));
}

namespace {

// Each node type is copied through its concrete class.
class WithSpan final : public ExprFunctor<Expr(Span)> {
 private:
  template <class Node>
  static Expr copy(const Node* node, Span span) {
    auto n = std::make_shared<Node>(*node);
    n->span = span;
    return Expr(std::move(n));
  }
  Expr visit_expr(const IntImmNode* op, const Expr&, Span span) override { return copy(op, span); }
  Expr visit_expr(const FloatImmNode* op, const Expr&, Span span) override {
    return copy(op, span);
  }
  Expr visit_expr(const BinaryNode* op, const Expr&, Span span) override { return copy(op, span); }
  Expr visit_expr(const UnaryNode* op, const Expr&, Span span) override { return copy(op, span); }
  Expr visit_expr(const SelectNode* op, const Expr&, Span span) override { return copy(op, span); }
  Expr visit_expr(const CastNode* op, const Expr&, Span span) override { return copy(op, span); }
  Expr visit_expr(const LoadNode* op, const Expr&, Span span) override { return copy(op, span); }
  Expr visit_expr(const CallNode* op, const Expr&, Span span) override { return copy(op, span); }
  Expr visit_expr(const VarNode*, const Expr& self, Span) override {
    return self;  // variables keep identity; their span is the definition's
  }
};

}  // namespace

Expr with_span(Expr e, Span span) {
  if (!e) return e;
  return WithSpan().dispatch_expr(e, span);
}

const int64_t* as_const_int(const Expr& e) {
  auto* i = e.as<IntImmNode>();
  return i ? &i->value : nullptr;
}
bool is_const_int(const Expr& e, int64_t value) {
  auto* v = as_const_int(e);
  return v && *v == value;
}

Expr operator+(Expr a, Expr b) { return binary(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return binary(BinaryOp::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return binary(BinaryOp::kMul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return binary(BinaryOp::kDiv, std::move(a), std::move(b)); }
Expr operator-(Expr a) { return unary(UnaryOp::kNeg, std::move(a)); }
Expr floordiv(Expr a, Expr b) { return binary(BinaryOp::kFloorDiv, std::move(a), std::move(b)); }
Expr floormod(Expr a, Expr b) { return binary(BinaryOp::kFloorMod, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return binary(BinaryOp::kMin, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return binary(BinaryOp::kMax, std::move(a), std::move(b)); }
Expr ceildiv(Expr a, Expr b) { return floordiv(a + b - Expr(1), b); }
Expr operator<(Expr a, Expr b) { return binary(BinaryOp::kLT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return binary(BinaryOp::kLE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return binary(BinaryOp::kGT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return binary(BinaryOp::kGE, std::move(a), std::move(b)); }
Expr eq(Expr a, Expr b) { return binary(BinaryOp::kEQ, std::move(a), std::move(b)); }
Expr ne(Expr a, Expr b) { return binary(BinaryOp::kNE, std::move(a), std::move(b)); }
Expr logical_and(Expr a, Expr b) { return binary(BinaryOp::kAnd, std::move(a), std::move(b)); }
Expr logical_or(Expr a, Expr b) { return binary(BinaryOp::kOr, std::move(a), std::move(b)); }
Expr logical_not(Expr a) { return unary(UnaryOp::kNot, std::move(a)); }

}  // namespace tilec::ir
