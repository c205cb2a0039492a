#include "tilec/cpu/transpose_tile.h"

#include "tilec/cpu/cpu_resources.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/simplify.h"

namespace tilec::cpu {

using namespace ir;

Expr transpose_tile(Expr src_element, Expr dst_element, int64_t lanes, Expr src_stride,
                    Expr dst_stride) {
  return call_extern(
      DataType::Int32(), kTransposeTileFunction,
      {std::move(src_element), std::move(dst_element), make_int(lanes, DataType::Int64()),
       std::move(src_stride), std::move(dst_stride)});
}

bool is_transpose_tile_lanes(int64_t lanes) {
  return lanes >= 2 && lanes <= 16 && (lanes & (lanes - 1)) == 0;
}

std::optional<TransposeTile> as_transpose_tile(const CallNode& c) {
  if (c.call_kind != CallKind::kExtern || c.name != kTransposeTileFunction || c.args.size() != 5)
    return std::nullopt;
  TransposeTile t;
  t.src = c.args[0].as<LoadNode>();
  t.dst = c.args[1].as<LoadNode>();
  const int64_t* lanes = as_const_int(c.args[2]);
  if (!t.src || !t.dst || !lanes || !is_transpose_tile_lanes(*lanes)) return std::nullopt;
  t.lanes = *lanes;
  t.src_stride = c.args[3];
  t.dst_stride = c.args[4];
  return t;
}

std::pair<std::vector<int>, std::vector<int>> transpose_shuffle_masks(int64_t lanes, int64_t half) {
  std::vector<int> first, second;
  const int n = int(lanes), h = int(half);
  for (int c = 0; c < n; ++c) {
    // Row i keeps its columns without the `half` bit and takes row i+half's from
    // `half` lower; row i+half takes row i's from `half` higher and keeps its own.
    first.push_back((c & h) ? n + c - h : c);
    second.push_back((c & h) ? n + c : c + h);
  }
  return {first, second};
}

namespace {

bool uses(const Expr& e, const VarNode* v) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found = found || x.get() == v; });
  return found;
}

// How `index` moves when `v` grows by one, when `index` is linear in `v` (sums,
// differences and constant multiples; anything else not using `v` counts as a
// constant), else nullopt.
std::optional<int64_t> step_along(const Expr& index, const VarNode* v) {
  if (!uses(index, v)) return 0;
  if (index.get() == v) return 1;
  if (auto* c = index.as<CastNode>(); c && c->dtype.is_int() && c->value.dtype().is_int())
    return step_along(c->value, v);
  auto* b = index.as<BinaryNode>();
  if (!b) return std::nullopt;
  auto sa = step_along(b->a, v), sb = step_along(b->b, v);
  if (!sa || !sb) return std::nullopt;
  switch (b->op) {
    case BinaryOp::kAdd:
      return *sa + *sb;
    case BinaryOp::kSub:
      return *sa - *sb;
    case BinaryOp::kMul:
      if (const int64_t* k = as_const_int(b->a); k && *sa == 0) return *k * *sb;
      if (const int64_t* k = as_const_int(b->b); k && *sb == 0) return *sa * *k;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

Expr int64(const Expr& e) {
  return e.dtype() == DataType::Int64() ? e : cast(DataType::Int64(), e);
}

class TransposeCopies : public StmtMutator {
 public:
  explicit TransposeCopies(int64_t lanes) : lanes_(lanes) {}

 protected:
  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Stmt lowered = StmtMutator::mutate_for(op, self);
    if (auto* loop = lowered.as<ForNode>())
      if (auto tiled = tile(*loop)) return *tiled;
    return lowered;
  }

 private:
  std::optional<Stmt> tile(const ForNode& outer) {
    auto* inner = outer.body.as<ForNode>();
    if (outer.step != 1 || !inner || inner->step != 1 || outer.num_stages || inner->num_stages)
      return std::nullopt;
    auto* st = inner->body.as<StoreNode>();
    if (!st || st->buffer->ndim() != 2 || !st->buffer->strides.empty() ||
        st->buffer->dtype != DataType::Float32())
      return std::nullopt;
    auto* row_var = st->indices[0].as<VarNode>();
    auto* col_var = st->indices[1].as<VarNode>();
    if (row_var != outer.var.get() || col_var != inner->var.get()) return std::nullopt;
    Expr value = st->value;
    if (auto* c = value.as<CastNode>(); c && c->value.dtype() == value.dtype()) value = c->value;
    auto* ld = value.as<LoadNode>();
    if (!ld || ld->buffer->dtype != DataType::Float32() || !ld->buffer->strides.empty() ||
        ld->buffer->ndim() < 2)
      return std::nullopt;
    // src's last index moves with the row, exactly one other with the column.
    const int last = ld->buffer->ndim() - 1;
    int column_dim = -1;
    for (int d = 0; d <= last; ++d) {
      auto dr = step_along(ld->indices[d], outer.var.get());
      auto dc = step_along(ld->indices[d], inner->var.get());
      if (!dr || !dc) return std::nullopt;
      if (d == last) {
        if (*dr != 1 || *dc != 0) return std::nullopt;
      } else if (*dc == 1 && *dr == 0 && column_dim < 0) {
        column_dim = d;
      } else if (*dc != 0 || *dr != 0) {
        return std::nullopt;
      }
    }
    if (column_dim < 0) return std::nullopt;
    Expr src_stride = make_int(1, DataType::Int64());
    for (int d = column_dim + 1; d <= last; ++d)
      src_stride = src_stride * int64(ld->buffer->shape[d]);

    const DataType it = outer.var.dtype(), ct = inner->var.dtype();
    auto fold = [](const Expr& e) { return transform::simplify(e); };
    Expr L_r = make_int(lanes_, it), L_c = make_int(lanes_, ct);
    Expr r_tiles = fold(floordiv(max(outer.end - outer.begin, make_int(0, it)), L_r));
    Expr c_tiles = fold(floordiv(max(inner->end - inner->begin, make_int(0, ct)), L_c));
    Expr r_full = fold(outer.begin + r_tiles * L_r), c_full = fold(inner->begin + c_tiles * L_c);
    Var tr = make_var("tr", it), tc = make_var("tc", ct);
    Expr r0 = fold(outer.begin + tr * L_r), c0 = fold(inner->begin + tc * L_c);
    VarMap at_corner{{outer.var.get(), r0}, {inner->var.get(), c0}};
    Expr src = substitute(value, at_corner);
    Expr dst = load(st->buffer, {r0, c0});
    Stmt tiles = for_loop(tr, make_int(0, it), r_tiles,
                          for_loop(tc, make_int(0, ct), c_tiles,
                                   evaluate(transpose_tile(fold(src), dst, lanes_, fold(src_stride),
                                                           int64(st->buffer->shape[1])))));
    // The rows below the tiles, whole; then the columns right of them in the rows above.
    auto rest = [&](const Expr& rb, const Expr& re, const Expr& cb, const Expr& ce) {
      Var r = make_var(outer.var.name(), it), c = make_var(inner->var.name(), ct);
      Stmt body = substitute(inner->body, VarMap{{outer.var.get(), r}, {inner->var.get(), c}});
      return for_loop(r, rb, re, for_loop(c, cb, ce, body, inner->for_kind), outer.for_kind);
    };
    return seq({tiles, rest(r_full, outer.end, inner->begin, inner->end),
                rest(outer.begin, r_full, c_full, inner->end)});
  }

  int64_t lanes_;
};

}  // namespace

Stmt transpose_copies(const Stmt& body, int64_t lanes) {
  if (!is_transpose_tile_lanes(lanes)) return body;
  return TransposeCopies(lanes).mutate(body);
}

transform::Pass transpose_copies_pass() {
  return transform::Pass{
      "cpu.transpose_copies", [](const IRModule& mod, const transform::PassInfo& info) {
        int64_t lanes = std::min<int64_t>(16, vector_unit_for(info.target).bytes / 4);
        return transform::map_function_bodies(
            mod, [&](const PrimFunc& f) { return transpose_copies(f->body, lanes); });
      }};
}

}  // namespace tilec::cpu
