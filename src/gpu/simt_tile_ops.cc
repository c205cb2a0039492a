#include "tilec/gpu/simt_tile_ops.h"

#include "tilec/gpu/simt_context.h"
#include "tilec/gpu/simt_gemm.h"
#include "tilec/gpu/subgroup.h"
#include "tilec/transform/simplify.h"

#include "tilec/transform/reduce_ops.h"

#include <fmt/format.h>

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

// dst's element at indices `d_idx` in a tile of src's shape: the reduced dim at 0.
std::vector<Expr> reduced_position(const ReduceNode& op, const std::vector<Expr>& d_idx) {
  bool keeps_dim = op.dst->ndim() == op.src->ndim();
  std::vector<Expr> at;
  for (int d = 0, k = 0; d < op.src->ndim(); ++d) {
    if (d == op.dim) {
      at.push_back(make_zero(op.src->shape[size_t(d)].dtype()));
      if (keeps_dim) ++k;
    } else {
      at.push_back(d_idx[size_t(k++)]);
    }
  }
  return at;
}

// Stage the (abs of the) source, cast to dst's dtype, in a shared tile; halve it along
// the reduced dimension in log2(extent) steps, each split over the threads (the
// barrier planner separates them); every thread then receives position 0.
Stmt reduce_by_tree(const ReduceNode& op, int64_t extent) {
  const Buffer& src = op.src;
  const Buffer& dst = op.dst;
  int nd = src->ndim();
  DataType t = dst->dtype;
  bool absolute = op.reduce_kind == ReduceKind::kAbsSum || op.reduce_kind == ReduceKind::kAbsMax;
  Buffer tree = make_buffer(src->name + "_red", src->shape, t, StorageScope::kShared);
  std::vector<Var> sv = fresh_vars("s", size_t(nd));
  std::vector<Expr> s_idx(sv.begin(), sv.end());
  Expr x = cast(t, load(src, s_idx));
  if (absolute) x = call("abs", {x});
  std::vector<Stmt> stages = {parallel_nest_over(sv, src->shape, store(tree, s_idx, x))};
  int64_t half = 1;
  while (half * 2 < extent) half *= 2;
  for (int64_t stride = extent > 1 ? half : 0; stride >= 1; stride /= 2) {
    std::vector<Var> tv = fresh_vars("t", size_t(nd));
    std::vector<Expr> extents = src->shape, here(tv.begin(), tv.end()), there = here;
    extents[size_t(op.dim)] = make_int(stride, src->shape[size_t(op.dim)].dtype());
    Expr partner = tv[size_t(op.dim)] + make_int(stride, tv[size_t(op.dim)].dtype());
    there[size_t(op.dim)] = partner;
    Stmt step = store(
        tree, here, transform::reduce_combine(op.reduce_kind, load(tree, here), load(tree, there)));
    // Only the first step of an extent that is not a power of two has lanes without a partner.
    if (stride * 2 > extent) step = if_then_else(partner < src->shape[size_t(op.dim)], step);
    stages.push_back(parallel_nest_over(tv, extents, step));
  }
  std::vector<Var> dv = fresh_vars("d", size_t(dst->ndim()));
  std::vector<Expr> d_idx(dv.begin(), dv.end());
  Expr result = load(tree, reduced_position(op, d_idx));
  if (!op.clear) result = transform::reduce_combine(op.reduce_kind, load(dst, d_idx), result);
  stages.push_back(parallel_nest_over(dv, dst->shape, store(dst, d_idx, result)));
  return allocate(tree, seq(stages));
}

// Whether subgroup operations can reduce `dtype` on `target` for a block of
// `threads`: the target's printer maps them (subgroup_reduce), a fixed warp size divides
// the block, and the dtype is one both APIs reduce (32/64-bit floats and integers).
bool subgroups_fit(const target::Target& target, int64_t threads, DataType t) {
  if (target.get_int(kSubgroupReduceAttr, 0) == 0) return false;
  int64_t warp = target.get_int("thread_warp_size", 1);
  if (warp > 1 && threads % warp != 0) return false;
  bool wide_float = t.is_float() && !t.is_bfloat16() && (t.bits == 32 || t.bits == 64);
  bool wide_int = t.is_integer() && (t.bits == 32 || t.bits == 64);
  return t.is_scalar() && (wide_float || wide_int);
}

// Stage the (abs of the) source in a shared tile in dst's dtype; then each subgroup takes
// output rows sg, sg + S, ... (S subgroups): its lanes combine the row's elements lane,
// lane + W, ... (W lanes) serially, one subgroup reduce combines the lanes, and lane 0
// stores the row's result; every thread then receives the results (dst is replicated).
// The barrier planner separates the stages.
Stmt reduce_by_subgroups(const ReduceNode& op) {
  const Buffer& src = op.src;
  const Buffer& dst = op.dst;
  int nd = src->ndim();
  DataType t = dst->dtype;
  DataType i32 = DataType::Int32();
  bool keeps_dim = dst->ndim() == nd;
  bool absolute = op.reduce_kind == ReduceKind::kAbsSum || op.reduce_kind == ReduceKind::kAbsMax;
  Buffer staged = make_buffer(src->name + "_red", src->shape, t, StorageScope::kShared);
  std::vector<Var> sv = fresh_vars("s", size_t(nd));
  std::vector<Expr> s_idx(sv.begin(), sv.end());
  Expr x = cast(t, load(src, s_idx));
  if (absolute) x = call("abs", {x});
  Stmt stage = parallel_nest_over(sv, src->shape, store(staged, s_idx, x));

  std::vector<Expr> kept_shape;
  for (int d = 0; d < nd; ++d)
    if (d != op.dim) kept_shape.push_back(src->shape[size_t(d)]);
  Buffer rows = make_buffer(dst->name + "_red",
                            kept_shape.empty() ? std::vector<Expr>{make_int(1)} : kept_shape, t,
                            StorageScope::kShared);
  Expr row_count = make_int(1);
  for (const auto& e : kept_shape) row_count = row_count * cast(i32, e);
  row_count = transform::simplify(row_count);
  Expr extent = cast(i32, src->shape[size_t(op.dim)]);

  Var sg = make_var("sg"), lane = make_var("lane"), width = make_var("sg_size"),
      groups = make_var("sg_count");
  Var q = make_var("q"), p = make_var("p"), o = make_var("o"), j = make_var("j");
  // o unflattened over the kept dimensions (row-major), and the row's element j.
  std::vector<Expr> o_idx(kept_shape.size()), row_idx;
  {
    Expr stride = make_int(1);
    for (size_t k = kept_shape.size(); k-- > 0;) {
      Expr c = floordiv(Expr(o), stride);
      o_idx[k] = cast(kept_shape[k].dtype(), k == 0 ? c : floormod(c, cast(i32, kept_shape[k])));
      stride = stride * cast(i32, kept_shape[k]);
    }
  }
  for (int d = 0, k = 0; d < nd; ++d) {
    row_idx.push_back(d == op.dim ? cast(src->shape[size_t(d)].dtype(), Expr(j))
                                  : o_idx[size_t(k++)]);
  }
  Buffer acc = make_buffer(dst->name + "_acc", {make_int(1)}, t, StorageScope::kVar);
  Stmt lanes =
      for_loop(p, make_int(0), floordiv(extent - lane + width - make_int(1), Expr(width)),
               let(j, lane + p * width,
                   store(acc, {make_int(0)},
                         transform::reduce_combine(op.reduce_kind, load(acc, {make_int(0)}),
                                                   load(staged, row_idx)))));
  Var combined = make_var("combined", t);
  std::vector<Expr> rows_idx = o_idx.empty() ? std::vector<Expr>{make_int(0)} : o_idx;
  Stmt row = allocate(
      acc,
      seq({lanes, let(combined,
                      call_extern(t, kSubgroupReducePrefix + subgroup_combination(op.reduce_kind),
                                  {load(acc, {make_int(0)})}),
                      if_then_else(eq(Expr(lane), make_int(0)), store(rows, rows_idx, combined)))}),
      transform::reduce_identity(op.reduce_kind, t));
  Stmt per_subgroup =
      for_loop(q, make_int(0), floordiv(row_count - sg + groups - make_int(1), Expr(groups)),
               let(o, sg + q * groups, row));
  Stmt reduce = let(sg, call_extern(i32, kSubgroupId, {}),
                    let(lane, call_extern(i32, kSubgroupLocalId, {}),
                        let(width, call_extern(i32, kSubgroupSize, {}),
                            let(groups, call_extern(i32, kNumSubgroups, {}), per_subgroup))));

  std::vector<Var> dv = fresh_vars("d", size_t(dst->ndim()));
  std::vector<Expr> d_idx(dv.begin(), dv.end()), from;
  for (int d = 0; d < dst->ndim(); ++d)
    if (!keeps_dim || d != op.dim) from.push_back(dv[size_t(d)]);
  if (from.empty()) from.push_back(make_int(0));
  Expr result = load(rows, from);
  if (!op.clear) result = transform::reduce_combine(op.reduce_kind, load(dst, d_idx), result);
  Stmt receive = parallel_nest_over(dv, dst->shape, store(dst, d_idx, result));
  return allocate(staged, allocate(rows, seq({stage, reduce, receive})));
}

std::optional<Stmt> lower_reduce_simt(const Stmt& stmt, const target::Target& target) {
  const auto* op = stmt.as<ReduceNode>();
  const Buffer& src = op->src;
  const Buffer& dst = op->dst;
  int nd = src->ndim();
  if (op->dim < 0 || op->dim >= nd) return std::nullopt;  // the generic one reports it
  bool keeps_dim = dst->ndim() == nd;
  if (!keeps_dim && dst->ndim() != nd - 1) return std::nullopt;
  DataType t = dst->dtype;
  bool absolute = op->reduce_kind == ReduceKind::kAbsSum || op->reduce_kind == ReduceKind::kAbsMax;

  // A tree reorders the combination: exact for max/min and integers, within the float32
  // and float64 tolerances for sums, but not for sums rounded to a narrow float at every step.
  bool narrow_float = t.is_narrow_float();  // float16, bfloat16, float8
  bool reorderable = !(narrow_float && (op->reduce_kind == ReduceKind::kSum ||
                                        op->reduce_kind == ReduceKind::kAbsSum));
  const int64_t* extent = as_const_int(src->shape[size_t(op->dim)]);
  if (extent && reorderable) {
    const SimtContext* ctx = current_simt_context();
    if (ctx && subgroups_fit(target, ctx->num_threads(), t)) return reduce_by_subgroups(*op);
    return reduce_by_tree(*op, *extent);
  }
  // Otherwise one thread per output element reduces its row in the interpreter's order,
  // from dst's current value when clear=False.
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
               store(acc, {make_int(0)},
                     transform::reduce_combine(op->reduce_kind, load(acc, {make_int(0)}), x)));
  std::vector<Expr> rows_idx = o_idx.empty() ? std::vector<Expr>{make_int(0)} : o_idx;
  // The dst element of output o (dst is replicated: every thread holds it).
  std::vector<Expr> dst_of_row;
  for (int d = 0, o = 0; d < dst->ndim(); ++d) {
    dst_of_row.push_back(keeps_dim && d == op->dim ? make_zero(DataType::Int32())
                                                   : Expr(ov[size_t(o++)]));
  }
  Expr start = op->clear ? transform::reduce_identity(op->reduce_kind, t) : load(dst, dst_of_row);
  Stmt reduce_row =
      allocate(acc, seq({accumulate, store(rows, rows_idx, load(acc, {make_int(0)}))}), start);
  Stmt reduce = parallel_nest_over(ov, kept_shape, reduce_row);

  // Stage 3: every thread receives the results (dst is replicated).
  std::vector<Var> dv = fresh_vars("d", size_t(dst->ndim()));
  std::vector<Expr> d_idx(dv.begin(), dv.end()), from;
  for (int d = 0; d < dst->ndim(); ++d)
    if (!keeps_dim || d != op->dim) from.push_back(dv[size_t(d)]);
  if (from.empty()) from.push_back(make_int(0));
  Expr result = load(rows, from);
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
      simt_gemm_impl(kSimtTileOpPriority),
      {"simt.reduce", TileOpKind::kReduce, is_gpu_target, kSimtTileOpPriority, lower_reduce_simt},
      {"simt.pipelined_serial", TileOpKind::kScheduledLoop, is_gpu_target, kSimtTileOpPriority,
       lower_pipelined_serial},
  };
}

}  // namespace tilec::gpu
