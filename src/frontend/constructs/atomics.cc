// Atomics and scans: T.atomic_add/max/min on elements and tiles, T.atomic_addx2/x4,
// T.cumsum and T.cummax (docs/semantics.md, "Atomics" and "Scans").
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

std::vector<Construct> atomic_constructs() {
  std::vector<Construct> rows;
  // return_prev / memory_order: the element form's value is the old value on request;
  // every target's atomics are sequentially consistent. use_tma: how Hopper moves tiles.
  for (const char* name : {"atomic_add", "atomic_max", "atomic_min"})
    rows.push_back({name,
                    ConstructRole::kStatement,
                    {required("dst"), required("value"), optional("return_prev", "False"),
                     optional("memory_order"), optional("use_tma", "False")},
                    &Lowering::lower_atomic,
                    &Lowering::lower_atomic_value});
  for (const char* name : {"atomic_addx2", "atomic_addx4"})
    rows.push_back({name,
                    ConstructRole::kStatement,
                    {required("dst"), required("value"), optional("return_prev", "False")},
                    &Lowering::lower_atomic_vector});
  // T.cumsum and T.cummax: inclusive scans, by addition or by max. annotations= steer
  // the GPU lowering only.
  for (const char* name : {"cumsum", "cummax"})
    rows.push_back({name,
                    ConstructRole::kStatement,
                    {required("src"), optional("dst"), optional("dim", "0"),
                     optional("reverse", "False"), optional("annotations")},
                    &Lowering::lower_cumsum});
  return rows;
}

// T.atomic_add(A[i], v) in an expression: the element's value before the update.
Expr Lowering::lower_atomic_value(const ConstructCall& c) {
  return atomic_element(c.call, c.construct.name, *c[0], *c[1]);
}

// T.atomic_add(C[i, j], v) updates one element; T.atomic_add(C[i0, j0], tile) or
// T.atomic_add(C[i0:i1, j], tile) adds a whole buffer elementwise into the region
// (its sliced dimensions, in order, match the tile's), skipping elements outside C.
Stmt Lowering::lower_atomic(const ConstructCall& a) {
  const AstExpr& e = a.call;
  const std::string& fn = a.construct.name;
  const std::string& q = a.spelled;
  Span span = a.span;
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
Stmt Lowering::lower_atomic_vector(const ConstructCall& a) {
  const AstExpr& e = a.call;
  const int64_t lanes = a.construct.name == "atomic_addx2" ? 2 : 4;
  const std::string& q = a.spelled;
  Span span = a.span;
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
  Expr update = guarded(e.span, [&] { return atomic_update("atomic_add", target, value, e.span); });
  return guarded(span, [&] {
    return for_loop(lane, make_int(0), make_int(lanes), evaluate(update, span), ForKind::kUnrolled,
                    1, span);
  });
}

// T.cumsum(src, dst=None, dim=0, reverse=False): TileLang's inclusive prefix sum of a
// buffer or region along dim (reverse: the suffix sum), into dst (src itself when None,
// same extents). It lowers here into loops every target runs: a T.Parallel nest over
// the other dimensions (one iteration for a 1-D tile), each iteration scanning its line
// serially, dst[k] = dst[k -/+ 1] + src[k], rounded to dst's dtype at every step.
Stmt Lowering::lower_cumsum(const ConstructCall& a) {
  const AstExpr& e = a.call;
  const std::string& q = a.spelled;
  Span span = a.span;
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
  Expr sum =
      a.construct.name == "cummax"
          ? guarded(e.span,
                    [&] {
                      return fold(call("max", {load_at(dst, previous), load_at(src, k)}, e.span),
                                  e.span);
                    })
          : binary_op(BinaryOp::kAdd, load_at(dst, previous), load_at(src, k), e.span);
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
std::optional<int64_t> Lowering::slice_extent(const Expr& start, const Expr& stop) {
  const int64_t* a = as_const_int(start);
  const int64_t* b = as_const_int(stop);
  if (a && b) return *b - *a;
  const auto* add = stop.as<BinaryNode>();
  if (add && add->op == BinaryOp::kAdd && structural_equal(add->a, start))
    if (const int64_t* c = as_const_int(add->b)) return *c;
  return std::nullopt;
}

Expr Lowering::atomic_element(const AstExpr& e, const std::string& fn, const AstExpr& dst,
                              const AstExpr& value) {
  if (dst.kind != AstKind::kSubscript)
    fail(dst.span, "T." + fn + " updates one element A[i, j] or adds a tile into a region");
  Expr element = expr(dst);
  Expr v = expr(value);
  return guarded(e.span, [&] { return atomic_update(fn, element, v, e.span); });
}

}  // namespace tilec::frontend
