// Arguments and annotations: kernel parameters, call arguments bound to parameter
// names, and dtype, bool, int, shape, buffer and region arguments.
#include "lowering.h"

namespace tilec::frontend {

// `*args` / `**kwargs` parameters are for the helpers autotune configs call (evaluated
// by tilec/frontend/autotune.h), not for a function that is lowered.
void Lowering::no_star_parameters(const AstStmt& s) {
  for (const auto& p : s.params) {
    if (!p.star) continue;
    std::string spelled = (p.star == 2 ? "**" : "*") + p.name;
    fail(p.span, "'" + spelled + "' parameters are not supported in '" + s.name + "'",
         "unpacking is evaluated only in autotune config helpers; declare each "
         "parameter by name");
  }
}

// Whether a parameter is annotated T.Tensor(...) / T.Tensor[...] / T.Buffer(...).
bool Lowering::tensor_annotation(const AstParam& p) const {
  const AstExpr* a = p.annotation.get();
  if (!a || (a->kind != AstKind::kCall && a->kind != AstKind::kSubscript) ||
      a->base->kind != AstKind::kAttribute)
    return false;
  std::string fn = language_function(*a->base);
  return fn == "Tensor" || fn == "Buffer";
}

// The dtype of a `name: T.int32`-style annotation (a TIR scalar type), else none.
std::optional<DataType> Lowering::scalar_annotation(const AstParam& p) const {
  if (!p.annotation || p.annotation->kind != AstKind::kAttribute) return std::nullopt;
  std::string fn = language_function(*p.annotation);
  if (fn.empty()) return std::nullopt;
  return DataType::parse(fn);
}

Param Lowering::parameter(const std::string& name, const AstExpr& a, Span span) {
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

BoundArgs Lowering::bind_args(const AstExpr& call, const std::string& fn,
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
      fail(call.span, fn + " is missing argument '" + names[i] + "'", "signature: " + signature());
  return out;
}

// The arguments of a call of construct `c`, bound to its row's parameters: by position
// or keyword (bind_args' errors), by position only and exactly (TVM's printed
// intrinsics), or, for a variadic row, all positional (a hint's, any keywords too).
ConstructCall Lowering::bind_construct(const Construct& c, const AstExpr& call, Span span) {
  ConstructCall out{call, c, "T." + c.name, {}, span};
  if (c.variadic) {
    if (c.role != ConstructRole::kHint) no_keywords(call, out.spelled);
    for (const auto& arg : call.children) out.args.push_back(arg.get());
    return out;
  }
  if (c.positional_only) {
    no_keywords(call, out.spelled);
    if (call.children.size() != c.params.size())
      fail(call.span, out.spelled + " takes " + std::to_string(c.params.size()) +
                          " argument(s), got " + std::to_string(call.children.size()));
    for (const auto& arg : call.children) out.args.push_back(arg.get());
    return out;
  }
  std::vector<std::string> names;
  size_t required = 0;
  for (const auto& p : c.params) {
    names.push_back(p.name);
    if (p.required) required = names.size();
  }
  out.args = bind_args(call, out.spelled, names, required).values;
  return out;
}

void Lowering::no_keywords(const AstExpr& call, const std::string& fn) {
  if (!call.keywords.empty())
    fail(call.keywords[0].span,
         fn + " takes no keyword arguments (got '" + call.keywords[0].name + "')");
}

DataType Lowering::dtype_arg(const AstExpr& e) {
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

bool Lowering::bool_arg(const AstExpr& e, const std::string& what) {
  if (e.kind == AstKind::kBool) return e.name == "True";
  Expr v = expr(e);
  if (auto* i = v.as<IntImmNode>()) return i->value != 0;
  fail(e.span, "'" + what + "' must be True or False");
}

int64_t Lowering::int_arg(const AstExpr& e, const std::string& what) {
  Expr v = expr(e);
  if (auto* i = v.as<IntImmNode>(); i && !v.dtype().is_bool()) return i->value;
  fail(e.span, "'" + what + "' must be a constant integer",
       "use an integer literal or a module constant");
}

// (M, N), [M, N] or a single extent.
std::vector<Expr> Lowering::shape_arg(const AstExpr& e, bool parameter) {
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
bool Lowering::makes_view(const AstExpr& e) {
  if (e.kind != AstKind::kCall || e.base->kind != AstKind::kAttribute) return false;
  std::string fn = language_function(*e.base);
  return fn == "reshape" || fn == "view";
}

Buffer Lowering::buffer_name(const AstExpr& e, const std::string& fn) {
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

TileRegion Lowering::region_arg(const AstExpr& e, const std::string& fn) {
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

StorageScope Lowering::scope_arg(const AstExpr& e) {
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

}  // namespace tilec::frontend
