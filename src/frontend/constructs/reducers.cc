// Reducers: T.reducer_init, T.reducer_update and T.finalize_reducer on a buffer from
// T.alloc_reducer (allocation.cc), and the identities of their combine ops.
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

// The reducer family (docs/semantics.md, "Reducers"): T.reducer_init(r[, value]) fills
// r with its op's identity (or value), T.reducer_update(r[i, j], v) combines v into
// one element as one indivisible step, so updates from any T.Parallel iterations
// may meet, and T.finalize_reducer(r[, dst]) makes the combined values available
// (copied into dst). The reducer is a per-block tile (shared scope), so the update is
// an atomic read-modify-write on every target.
std::vector<Construct> reducer_constructs() {
  return {
      {"reducer_init",
       ConstructRole::kStatement,
       {required("reducer"), optional("value")},
       &Lowering::lower_reducer},
      {"reducer_update",
       ConstructRole::kStatement,
       {required("target"), required("value")},
       &Lowering::lower_reducer},
      {"finalize_reducer",
       ConstructRole::kStatement,
       {required("reducer"), optional("dst"), optional("batch", "1")},
       &Lowering::lower_reducer},
  };
}

Stmt Lowering::lower_reducer(const ConstructCall& a) {
  const std::string& fn = a.construct.name;
  const std::string& q = a.spelled;
  Span span = a.span;
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
    const auto reducer = reducer_of(*a[0]);  // named, not bound: lambdas below use them
    const Buffer& r = reducer.first;
    const std::string& op = reducer.second;
    Expr value = a[1] ? expr(*a[1]) : reducer_identity(op, r->dtype, a[0]->span);
    value = guarded(a[1] ? a[1]->span : a[0]->span, [&] { return cast(r->dtype, value); });
    return fill(TileRegion{r, {}}, value, span);
  }
  if (fn == "reducer_update") {
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
  const auto reducer = reducer_of(*a[0]);  // named, not bound: lambdas below use them
  const Buffer& r = reducer.first;
  if (a[2] && int_arg(*a[2], "batch") < 1) fail(a[2]->span, "batch must be at least 1");
  if (!a[1]) return {};  // in place: the one per-block copy is already combined
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
Expr Lowering::reducer_identity(const std::string& op, DataType t, Span span) {
  if (op == "sum" || op == "bitor" || op == "bitxor") return make_zero(t);
  if (op == "bitand") return t.is_uint() ? dtype_limit(t, false) : make_int(-1, t);
  return guarded(span, [&] { return op == "max" ? dtype_limit(t, true) : dtype_limit(t, false); });
}

}  // namespace tilec::frontend
