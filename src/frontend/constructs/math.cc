// Math and conversions in expressions: the math intrinsics (T.exp, T.max, T.fma, ...),
// T.clamp, integer division forms, T.if_then_else, casts, dtype limits, vectors
// (T.Ramp, T.Broadcast), region tests (T.any_of, T.all_of) and T.call_extern
// (docs/semantics.md, "Expressions and types").
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

namespace {

// A value construct that TVM prints with positional arguments only.
Construct positional(std::string name, std::vector<std::string> params, ValueLowering lower) {
  Construct c{std::move(name), ConstructRole::kValue, {}, nullptr, lower};
  for (auto& p : params) c.params.push_back(required(std::move(p)));
  c.positional_only = true;
  return c;
}

}  // namespace

std::vector<Construct> math_constructs() {
  std::vector<Construct> rows;
  static const std::map<std::string, std::vector<std::string>> params = {
      {"pow", {"x", "y"}},   {"atan2", {"y", "x"}},    {"fmod", {"x", "y"}},
      {"hypot", {"x", "y"}}, {"copysign", {"x", "y"}}, {"fma", {"x", "y", "z"}},
      {"max", {"x", "y"}},   {"min", {"x", "y"}}};
  for (const std::string& name : math_intrinsic_names()) {
    auto it = params.find(name);
    rows.push_back(positional(name, it == params.end() ? std::vector<std::string>{"x"} : it->second,
                              &Lowering::lower_math));
  }
  auto value = [](std::string name, std::vector<ConstructParam> ps, ValueLowering lower) {
    return Construct{std::move(name), ConstructRole::kValue, std::move(ps), nullptr, lower};
  };
  // TileLang's T.clamp(x, lo, hi) = T.min(T.max(x, lo), hi).
  rows.push_back(value("clamp", {required("dst"), required("min_val"), required("max_val")},
                       &Lowering::lower_clamp));
  for (const char* name : {"floordiv", "floormod", "truncdiv", "truncmod"})
    rows.push_back(positional(name, {"a", "b"}, &Lowering::lower_integer_operator));
  rows.push_back(positional("ceildiv", {"a", "b"}, &Lowering::lower_integer_operator));
  rows.push_back(
      positional("if_then_else", {"cond", "true_value", "false_value"}, &Lowering::lower_select));
  // TVM's T.Select(cond, a, b): the same value as T.if_then_else (tilec evaluates only the
  // side taken, which can only avoid an out-of-range read TVM's Select would make).
  rows.push_back(value("Select",
                       {required("condition"), required("true_value"), required("false_value")},
                       &Lowering::lower_select));
  // TVM's T.shift_left(x, y) / T.shift_right(x, y): x << y and x >> y.
  for (const char* name : {"shift_left", "shift_right"})
    rows.push_back(positional(name, {"x", "y"}, &Lowering::lower_integer_operator));
  rows.push_back(value("cast", {required("value"), required("dtype")}, &Lowering::lower_cast));
  // TVM's T.Cast(dtype, value).
  rows.push_back(value("Cast", {required("dtype"), required("value")}, &Lowering::lower_cast));
  for (const char* name : {"max_value", "min_value", "infinity"})
    rows.push_back(value(name, {required("dtype")}, &Lowering::lower_dtype_limit));
  rows.push_back(value("Ramp", {required("base"), required("stride"), required("lanes")},
                       &Lowering::lower_vector_lane));
  rows.push_back(
      value("Broadcast", {required("value"), required("lanes")}, &Lowering::lower_vector_lane));
  for (const char* name : {"any_of", "all_of"})
    rows.push_back(value(name, {required("buffer")}, &Lowering::lower_any_all_of));
  // T.call_extern("float32", "name", args...): the printed form of an extern call.
  Construct extern_call = value("call_extern", {required("dtype"), required("func_name")},
                                &Lowering::lower_call_extern);
  extern_call.variadic = true;
  extern_call.statement = &Lowering::lower_evaluate_value;  // called for its effect
  rows.push_back(extern_call);
  return rows;
}

std::vector<Expr> Lowering::argument_values(const ConstructCall& c) {
  std::vector<Expr> out;
  for (const AstExpr* arg : c.args) out.push_back(expr(*arg));
  return out;
}

Expr Lowering::lower_math(const ConstructCall& c) {
  std::vector<Expr> values = argument_values(c);
  const AstExpr& e = c.call;
  return fold(guarded(e.span, [&] { return call(c.construct.name, values, e.span); }), e.span);
}

Expr Lowering::lower_clamp(const ConstructCall& c) {
  std::vector<Expr> v = argument_values(c);
  Span span = c.call.span;
  return guarded(span, [&] {
    Expr low = fold(call("max", {v[0], v[1]}, span), span);
    return fold(call("min", {low, v[2]}, span), span);
  });
}

// Integer operators spelled as calls: T.floordiv / T.floormod are // and %; T.truncdiv /
// T.truncmod only where they equal them; T.ceildiv(a, b) = (a + b - 1) // b;
// T.shift_left / T.shift_right are << and >>.
Expr Lowering::lower_integer_operator(const ConstructCall& c) {
  const std::string& fn = c.construct.name;
  std::vector<Expr> v = argument_values(c);
  Span span = c.call.span;
  if (fn == "shift_left" || fn == "shift_right")
    return binary_op(fn == "shift_left" ? BinaryOp::kShl : BinaryOp::kShr, v[0], v[1], span);
  if (fn == "ceildiv") {
    Expr sum = binary_op(BinaryOp::kAdd, v[0], v[1], span);
    Expr less = binary_op(BinaryOp::kSub, sum, make_int(1), span);
    return binary_op(BinaryOp::kFloorDiv, less, v[1], span);
  }
  if (fn[0] == 't' && !(v[0].dtype().is_uint() || (as_const_int(v[0]) && *as_const_int(v[0]) >= 0 &&
                                                   as_const_int(v[1]) && *as_const_int(v[1]) > 0)))
    fail(span, c.spelled + " is only supported where it equals floor division",
         "use // and % (floor division and modulo)");
  BinaryOp op = fn.find("div") != std::string::npos ? BinaryOp::kFloorDiv : BinaryOp::kFloorMod;
  return binary_op(op, v[0], v[1], span);
}

Expr Lowering::lower_select(const ConstructCall& c) {
  std::vector<Expr> v = argument_values(c);
  return guarded(c.call.span, [&] { return select(v[0], v[1], v[2], c.call.span); });
}

Expr Lowering::lower_cast(const ConstructCall& c) {
  bool tvm_order = c.construct.name == "Cast";
  const AstExpr& value = *c[tvm_order ? 1 : 0];
  const AstExpr& dtype = *c[tvm_order ? 0 : 1];
  if (tvm_order) {
    DataType t = dtype_arg(dtype);
    return cast_value(t, expr(value), c.call.span);
  }
  Expr v = expr(value);
  return cast_value(dtype_arg(dtype), v, c.call.span);
}

Expr Lowering::lower_dtype_limit(const ConstructCall& c) {
  DataType t = dtype_arg(*c[0]);
  const std::string& fn = c.construct.name;
  if (fn == "infinity")
    return with_span(guarded(c[0]->span, [&] { return infinity(t); }), c.call.span);
  return with_span(dtype_limit(t, fn == "min_value"), c.call.span);
}

Expr Lowering::lower_call_extern(const ConstructCall& c) {
  const AstExpr& e = c.call;
  if (e.children.size() < 2 || e.children[1]->kind != AstKind::kString)
    fail(e.span, "T.call_extern takes a dtype, the function name as a string and its arguments",
         "e.g. T.call_extern(\"float32\", \"my_function\", x)");
  DataType t = dtype_arg(*e.children[0]);
  std::vector<Expr> values;
  for (size_t i = 2; i < e.children.size(); ++i) values.push_back(expr(*e.children[i]));
  return guarded(e.span, [&] { return call_extern(t, e.children[1]->name, values, e.span); });
}

// T.min_value(dtype) / T.max_value(dtype): the lowest / highest finite value.
Expr Lowering::dtype_limit(DataType t, bool lowest) {
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

// T.Ramp / T.Broadcast as an expression: lane `vector_lane_` of the vector.
Expr Lowering::lower_vector_lane(const ConstructCall& a) {
  const AstExpr& e = a.call;
  const std::string& fn = a.construct.name;
  const std::string& q = a.spelled;
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
  if (fn == "Broadcast") return with_span(expr(*a[0]), e.span);
  Expr base = expr(*a[0]), stride = expr(*a[1]);
  return with_span(guarded(e.span, [&] { return base + stride * Expr(vector_lane_->lane); }),
                   e.span);
}

// T.any_of(region) / T.all_of(region): whether any / every element of a buffer region
// is true (non-zero), TileLang's block-mask test. The region has constant extents; the
// result is the or / and of its elements' loads, in row-major order.
Expr Lowering::lower_any_all_of(const ConstructCall& a) {
  const AstExpr& e = a.call;
  const std::string& fn = a.construct.name;
  TileRegion r = region_arg(*a[0], "T." + fn);
  std::vector<Expr> starts;
  std::vector<int64_t> extents;
  int64_t total = 1;
  for (int d = 0; d < r.buffer->ndim(); ++d) {
    Expr start = r.is_whole() ? make_int(0) : r.dims[size_t(d)].start;
    Expr extent = r.buffer->shape[size_t(d)];
    if (!r.is_whole())
      extent = r.dims[size_t(d)].stop
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

}  // namespace tilec::frontend
