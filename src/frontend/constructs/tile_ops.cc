// Tile operations: T.copy, T.fill, T.clear, T.gemm, T.reduce_* and T.reduce
// (docs/semantics.md, "Tile operations").
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

namespace {

// In the order docs/semantics.md lists them.
const std::vector<std::pair<std::string, ReduceKind>>& reduce_kinds() {
  static const std::vector<std::pair<std::string, ReduceKind>> kinds = {
      {"reduce_sum", ReduceKind::kSum},
      {"reduce_max", ReduceKind::kMax},
      {"reduce_min", ReduceKind::kMin},
      {"reduce_abssum", ReduceKind::kAbsSum},
      {"reduce_absmax", ReduceKind::kAbsMax}};
  return kinds;
}

auto find_reduce_kind(const std::string& name) {
  const auto& kinds = reduce_kinds();
  return std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == name; });
}

}  // namespace

std::vector<Construct> tile_op_constructs() {
  // copy's annotations / coalesced_width / disable_tma / eviction_policy / loop_layout
  // and gemm's policy / k_pack / wg_wait only steer how a GPU does the work; the
  // results are the same.
  std::vector<Construct> rows = {
      {"copy",
       ConstructRole::kStatement,
       {required("src"), required("dst"), optional("coalesced_width"),
        optional("disable_tma", "False"), optional("eviction_policy"), optional("annotations"),
        optional("loop_layout")},
       &Lowering::lower_copy},
      {"fill",
       ConstructRole::kStatement,
       {required("buffer"), required("value")},
       &Lowering::lower_fill},
      {"clear", ConstructRole::kStatement, {required("buffer")}, &Lowering::lower_fill},
      {"gemm",
       ConstructRole::kStatement,
       {required("A"), required("B"), required("C"), optional("transpose_A", "False"),
        optional("transpose_B", "False"), optional("policy", "T.GemmWarpPolicy.Square"),
        optional("clear_accum", "False"), optional("k_pack", "1"), optional("wg_wait", "0")},
       &Lowering::lower_gemm},
  };
  for (const auto& [name, kind] : reduce_kinds())
    rows.push_back(
        {name,
         ConstructRole::kStatement,
         {required("buffer"), required("out"), optional("dim", "-1"), optional("clear", "True")},
         &Lowering::lower_reduce});
  // TileLang's generic form, which its T.reduce_<kind> wrappers call.
  rows.push_back({"reduce",
                  ConstructRole::kStatement,
                  {required("buffer"), required("out"), required("reduce_type"), required("dim"),
                   optional("clear", "True")},
                  &Lowering::lower_reduce});
  return rows;
}

Stmt Lowering::lower_copy(const ConstructCall& c) {
  TileRegion src = region_arg(*c[0], c.spelled), dst = region_arg(*c[1], c.spelled);
  return copy(src, dst, c.span);
}

// T.fill(buffer, value) and T.clear(buffer), the value converted to the buffer's dtype.
Stmt Lowering::lower_fill(const ConstructCall& c) {
  bool clear = c.construct.name == "clear";
  TileRegion dst = region_arg(*c[0], c.spelled);
  DataType t = dst.buffer->dtype;
  Expr value = clear ? make_zero(t) : expr(*c[1]);
  value = guarded(c[clear ? 0 : 1]->span, [&] { return cast(t, value); });
  return fill(dst, value, c.span);
}

Stmt Lowering::lower_gemm(const ConstructCall& c) {
  if (c[5]) gemm_policies_[{c.span.line, c.span.col}] = gemm_policy(*c[5]);
  if (c[7]) {
    int64_t k_pack = int_arg(*c[7], "k_pack");
    if (k_pack < 1) fail(c[7]->span, "k_pack must be at least 1");
  }
  if (c[8]) int_arg(*c[8], "wg_wait");
  auto n = std::make_shared<GemmNode>();
  n->span = c.span;
  n->a = region_arg(*c[0], c.spelled);
  n->b = region_arg(*c[1], c.spelled);
  n->c = region_arg(*c[2], c.spelled);
  n->transpose_a = c[3] && bool_arg(*c[3], "transpose_A");
  n->transpose_b = c[4] && bool_arg(*c[4], "transpose_B");
  n->clear_accum = c[6] && bool_arg(*c[6], "clear_accum");
  return Stmt(n);
}

// T.reduce_<kind>(buffer, out, dim, clear) and T.reduce(buffer, out, reduce_type, dim,
// clear), reduce_type a string constant naming the kind.
Stmt Lowering::lower_reduce(const ConstructCall& c) {
  const auto& kinds = reduce_kinds();
  if (c.construct.name != "reduce") {
    ReduceKind kind = find_reduce_kind(c.construct.name)->second;
    return reduce_statement(c.call, c.spelled, kind, c[0], c[1], c[2], c[3], c.span);
  }
  Binding type = const_value(*c[2], "reduce_type");
  auto it = type.kind == Binding::kString ? find_reduce_kind("reduce_" + type.text) : kinds.end();
  if (it == kinds.end())
    fail(c[2]->span,
         "T.reduce's reduce_type must be \"sum\", \"max\", \"min\", \"abssum\" or "
         "\"absmax\"",
         "T.reduce(A, B, \"sum\", dim, clear) is T.reduce_sum(A, B, dim=dim, clear=clear)");
  return reduce_statement(c.call, c.spelled, it->second, c[0], c[1], c[3], c[4], c.span);
}

// T.reduce_<kind>(buffer, out, dim=-1, clear=True) and T.reduce(buffer, out, kind, dim,
// clear): whole buffers, dim in [-ndim, ndim), clear by default.
Stmt Lowering::reduce_statement(const AstExpr& e, const std::string& q, ReduceKind kind,
                                const AstExpr* buffer, const AstExpr* out, const AstExpr* dim_arg,
                                const AstExpr* clear, Span span) {
  auto n = std::make_shared<ReduceNode>();
  n->span = span;
  n->reduce_kind = kind;
  for (const AstExpr* operand : {buffer, out})
    if (operand->kind != AstKind::kName && !makes_view(*operand))
      fail(operand->span, q + " operands must be whole buffers",
           "reduce a whole fragment or shared buffer; copy a region into one first");
  n->src = buffer_name(*buffer, q);
  n->dst = buffer_name(*out, q);
  int64_t dim = dim_arg ? int_arg(*dim_arg, "dim") : -1;
  int ndim = n->src->ndim();
  if (dim < -ndim || dim >= ndim)
    fail(dim_arg ? dim_arg->span : e.span,
         "dim " + std::to_string(dim) + " is out of range for the " + std::to_string(ndim) +
             "-dimensional buffer '" + n->src->name + "'",
         "use a dim in [" + std::to_string(-ndim) + ", " + std::to_string(ndim - 1) + "]");
  n->dim = int(dim < 0 ? dim + ndim : dim);
  n->clear = clear ? bool_arg(*clear, "clear") : true;
  return Stmt(n);
}

// T.GemmWarpPolicy.Square / FullRow / FullCol: how GPU warps split the gemm
// (gemm_policy.h), kept by the gemm's source place until the function is built.
GemmWarpPolicy Lowering::gemm_policy(const AstExpr& e) {
  if (e.kind == AstKind::kAttribute && e.base->kind == AstKind::kAttribute &&
      language_function(*e.base) == "GemmWarpPolicy") {
    std::optional<GemmWarpPolicy> policy = parse_gemm_warp_policy(e.name);
    if (!policy)
      fail(e.span, "unknown T.GemmWarpPolicy." + e.name, "policies: Square, FullRow, FullCol");
    return *policy;
  }
  fail(e.span, "policy must be a T.GemmWarpPolicy", "e.g. policy=T.GemmWarpPolicy.FullRow");
}

}  // namespace tilec::frontend
