// Views: V = T.reshape(A, shape) and T.view(A, shape, dtype), and buffers over another's
// data (T.Tensor(shape, dtype, A.data)), as tile-op operands and in element accesses.
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

std::vector<Construct> view_constructs() {
  Construct reshape{"reshape", ConstructRole::kAllocation, {required("src"), required("shape")}};
  reshape.allocation = &Lowering::lower_view;
  Construct view{
      "view", ConstructRole::kAllocation, {required("src"), optional("shape"), optional("dtype")}};
  view.allocation = &Lowering::lower_view;
  return {reshape, view};
}

// V[i, j] of a view V = T.reshape(A, (R, C)): A at the element whose row-major linear
// index is i * C + j (a reshape keeps the element order, as TileLang's does).
ElementAccess Lowering::view_access(const Binding& view, std::vector<Expr> indices,
                                    const AstExpr& e) {
  if (indices.size() != view.items.size())
    fail(e.span, "view '" + e.base->name + "' has " + std::to_string(view.items.size()) +
                     " dimension(s); it is indexed with " + std::to_string(indices.size()));
  return {view.buffer, root_indices(view_shape(view), view.buffer->shape, std::move(indices))};
}

std::vector<Expr> Lowering::view_shape(const Binding& view) {
  std::vector<Expr> shape;
  for (const auto& d : view.items) shape.push_back(d.value);
  return shape;
}

// A view as a tile-op operand: a stand-in resolved with the statement (view_tile_ops.h).
Buffer Lowering::view_operand(const std::string& name, const Binding& view, Span span) {
  return view_operands_.stand_in(name, view.buffer, view_shape(view), span);
}

// A tile-op statement with its view operands resolved (view_tile_ops.h).
Stmt Lowering::on_views(Stmt st, Span span) {
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
void Lowering::lower_view(const ConstructCall& a, const AstExpr& target, BlockAccumulator&) {
  bind_local(target.name, view_of(a), target.span);
}

// A view written in place, as an operand: T.copy(T.reshape(A, (M * N,))[i:j], ...).
Binding Lowering::view_binding(const AstExpr& value, const std::string& fn) {
  return view_of(bind_construct(*ConstructTable::get().find(fn), value, value.span));
}

Binding Lowering::view_of(const ConstructCall& a) {
  const bool view = a.construct.name == "view";
  return view_of(a.call, *a[0], a[1], view ? a[2] : nullptr, a.spelled, /*data_view=*/false);
}

// `T.Tensor(shape, dtype, A.data)` (also T.Buffer, T.decl_buffer(..., data=A.data)) in
// a kernel body: a buffer over A's data, i.e. a view of A; null when the call names no
// `X.data`.
std::optional<Binding> Lowering::data_view(const AstExpr& value, const std::string& fn) {
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
Binding Lowering::view_of(const AstExpr& value, const AstExpr& src, const AstExpr* shape_expr,
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

}  // namespace tilec::frontend
