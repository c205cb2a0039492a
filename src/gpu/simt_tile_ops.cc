#include "tilec/gpu/simt_tile_ops.h"

#include "tilec/transform/gemm_operands.h"

#include <fmt/format.h>

#include <cmath>

namespace tilec::gpu {

using namespace ir;

namespace {

Stmt parallel_nest_over(const std::vector<Var>& vars, const std::vector<Expr>& extents, Stmt body) {
  for (size_t k = vars.size(); k-- > 0;) {
    body = for_loop(vars[k], make_zero(extents[k].dtype()), extents[k], body, ForKind::kParallel);
  }
  return body;
}

std::vector<Var> fresh_vars(const std::string& prefix, size_t n) {
  std::vector<Var> vars;
  for (size_t k = 0; k < n; ++k) vars.push_back(make_var(prefix + std::to_string(k)));
  return vars;
}

std::optional<Stmt> lower_gemm_simt(const Stmt& stmt, const target::Target&) {
  const auto* op = stmt.as<GemmNode>();
  transform::GemmOperands g = transform::analyze_gemm(*op);
  Var m = make_var("m", g.M.dtype()), n = make_var("n", g.N.dtype()),
      k = make_var("k", g.K.dtype());
  Expr av = op->transpose_a ? g.a.at(k, m) : g.a.at(m, k);
  Expr bv = op->transpose_b ? g.b.at(n, k) : g.b.at(k, n);
  Expr product = binary(BinaryOp::kMul, cast(g.acc, av), cast(g.acc, bv));
  Stmt update = store(g.c.buffer, g.c.indices(m, n), binary(BinaryOp::kAdd, g.c.at(m, n), product));
  Stmt loops =
      parallel_nest_over({m, n}, {g.M, g.N}, for_loop(k, make_zero(g.K.dtype()), g.K, update));
  return transform::with_clear_accum(*op, g, loops);
}

Expr reduce_identity(ReduceKind kind, DataType t) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kAbsSum:
    case ReduceKind::kAbsMax:
      return make_zero(t);
    case ReduceKind::kMax:
    case ReduceKind::kMin: {
      bool max = kind == ReduceKind::kMax;
      if (t.is_float()) return make_float(max ? -INFINITY : INFINITY, t);
      if (t.is_uint()) return make_int(max ? 0 : int64_t(~uint64_t{0} >> (64 - t.bits)), t);
      int64_t hi = t.bits >= 64 ? INT64_MAX : (int64_t{1} << (t.bits - 1)) - 1;
      return make_int(max ? -hi - 1 : hi, t);
    }
  }
  return make_zero(t);
}

Expr combine(ReduceKind kind, Expr acc, Expr x) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kAbsSum:
      return binary(BinaryOp::kAdd, acc, x);
    case ReduceKind::kMax:
    case ReduceKind::kAbsMax:
      return binary(BinaryOp::kMax, acc, x);
    case ReduceKind::kMin:
      return binary(BinaryOp::kMin, acc, x);
  }
  return acc;
}

std::optional<Stmt> lower_reduce_simt(const Stmt& stmt, const target::Target&) {
  const auto* op = stmt.as<ReduceNode>();
  const Buffer& src = op->src;
  const Buffer& dst = op->dst;
  int nd = src->ndim();
  if (op->dim < 0 || op->dim >= nd) return std::nullopt;  // the generic one reports it
  bool keeps_dim = dst->ndim() == nd;
  if (!keeps_dim && dst->ndim() != nd - 1) return std::nullopt;
  DataType t = dst->dtype;
  bool absolute = op->reduce_kind == ReduceKind::kAbsSum || op->reduce_kind == ReduceKind::kAbsMax;

  // Stage 1: every thread writes the source elements it holds into a shared tile.
  Buffer staged = make_buffer(src->name + "_red", src->shape, src->dtype, StorageScope::kShared);
  std::vector<Var> sv = fresh_vars("s", size_t(nd));
  std::vector<Expr> s_idx(sv.begin(), sv.end());
  Stmt stage = parallel_nest_over(sv, src->shape, store(staged, s_idx, load(src, s_idx)));

  // Stage 2: one thread per output element reduces its row of the shared tile.
  std::vector<Expr> kept_shape;
  for (int d = 0; d < nd; ++d)
    if (d != op->dim) kept_shape.push_back(src->shape[d]);
  Buffer rows = make_buffer(dst->name + "_red",
                            kept_shape.empty() ? std::vector<Expr>{make_int(1)} : kept_shape, t,
                            StorageScope::kShared);
  std::vector<Var> ov = fresh_vars("o", kept_shape.size());
  Var j = make_var("j", src->shape[size_t(op->dim)].dtype());
  std::vector<Expr> row_idx, o_idx(ov.begin(), ov.end());
  for (int d = 0, o = 0; d < nd; ++d)
    row_idx.push_back(d == op->dim ? Expr(j) : Expr(ov[size_t(o++)]));
  Buffer acc = make_buffer(dst->name + "_acc", {make_int(1)}, t, StorageScope::kVar);
  Expr x = cast(t, load(staged, row_idx));
  if (absolute) x = call("abs", {x});
  Stmt accumulate =
      for_loop(j, make_zero(j.dtype()), src->shape[size_t(op->dim)],
               store(acc, {make_int(0)}, combine(op->reduce_kind, load(acc, {make_int(0)}), x)));
  std::vector<Expr> rows_idx = o_idx.empty() ? std::vector<Expr>{make_int(0)} : o_idx;
  Stmt reduce_row =
      allocate(acc, seq({accumulate, store(rows, rows_idx, load(acc, {make_int(0)}))}),
               reduce_identity(op->reduce_kind, t));
  Stmt reduce = parallel_nest_over(ov, kept_shape, reduce_row);

  // Stage 3: every thread receives the results (dst is replicated).
  std::vector<Var> dv = fresh_vars("d", size_t(dst->ndim()));
  std::vector<Expr> d_idx(dv.begin(), dv.end()), from;
  for (int d = 0; d < dst->ndim(); ++d)
    if (!keeps_dim || d != op->dim) from.push_back(dv[size_t(d)]);
  if (from.empty()) from.push_back(make_int(0));
  Expr result = load(rows, from);
  if (!op->clear) result = combine(op->reduce_kind, load(dst, d_idx), result);
  Stmt receive = parallel_nest_over(dv, dst->shape, store(dst, d_idx, result));

  return allocate(staged, allocate(rows, seq({stage, reduce, receive})));
}

std::optional<Stmt> lower_pipelined_serial(const Stmt& loop, const target::Target&) {
  const auto* op = loop.as<ForNode>();
  if (op->for_kind != ForKind::kPipelined) return std::nullopt;
  auto n = copy_node(op);
  n->for_kind = ForKind::kSerial;
  n->num_stages = 0;
  return Stmt(n);
}

}  // namespace

bool is_gpu_target(const target::Target& target) {
  return target.has_key("gpu");
}

std::vector<transform::TileOpImpl> simt_tile_op_impls() {
  using transform::TileOpKind;
  return {
      {"simt.gemm", TileOpKind::kGemm, is_gpu_target, kSimtTileOpPriority, lower_gemm_simt},
      {"simt.reduce", TileOpKind::kReduce, is_gpu_target, kSimtTileOpPriority, lower_reduce_simt},
      {"simt.pipelined_serial", TileOpKind::kScheduledLoop, is_gpu_target, kSimtTileOpPriority,
       lower_pipelined_serial},
  };
}

}  // namespace tilec::gpu
