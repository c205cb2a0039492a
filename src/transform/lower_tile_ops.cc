#include "tilec/transform/lower_tile_ops.h"

#include "generic_tile_ops.h"
#include "tilec/ir/mutator.h"
#include "tilec/transform/elementwise_tile_ops.h"
#include "tilec/transform/gemm_operands.h"
#include "tilec/transform/reduce_ops.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/tile_op_impl.h"

#include <fmt/format.h>

#include <algorithm>

namespace tilec::transform {

using namespace ir;

namespace {

// One dimension of a tile operand: where it starts and, for slices and whole
// buffers, how far it extends (an index has no extent of its own).
struct DimRef {
  Expr start;
  std::optional<Expr> extent;
  bool is_unit() const { return !extent || is_const_int(*extent, 1); }
};

std::vector<DimRef> describe(const TileRegion& r) {
  std::vector<DimRef> dims;
  if (r.is_whole()) {
    for (const auto& s : r.buffer->shape) dims.push_back({make_zero(s.dtype()), s});
    return dims;
  }
  if (int(r.dims.size()) != r.buffer->ndim()) {
    throw IRError(fmt::format("tile operand '{}' has {} dimensions but is indexed with {}",
                              r.buffer->name, r.buffer->ndim(), r.dims.size()));
  }
  for (const auto& d : r.dims) {
    if (d.stop) {
      dims.push_back({d.start, simplify(*d.stop - d.start)});
    } else {
      dims.push_back({d.start, std::nullopt});
    }
  }
  return dims;
}

std::string region_text(const TileRegion& r) {
  if (r.is_whole()) return r.buffer->name;
  return r.buffer->name + "[...]";
}

Expr index_dtype_zero(const Expr& like) {
  return make_zero(like.dtype());
}

// In-bounds condition of `indices` for buffer b (true when b is the whole buffer).
Expr in_bounds(const Buffer& b, const std::vector<Expr>& indices) {
  Expr cond = make_bool(true);
  for (size_t d = 0; d < indices.size(); ++d) {
    Expr i = indices[d];
    Expr c = logical_and(i >= index_dtype_zero(i), i < b->shape[d]);
    cond = logical_and(cond, c);
  }
  return simplify(cond);
}

Stmt nest(const std::vector<Var>& vars, const std::vector<Expr>& extents, Stmt body,
          ForKind innermost_kind, ForKind outer_kind) {
  for (size_t k = vars.size(); k-- > 0;) {
    ForKind kind = k + 1 == vars.size() ? innermost_kind : outer_kind;
    body = for_loop(vars[k], make_zero(extents[k].dtype()), extents[k], body, kind);
  }
  return body;
}

std::vector<Var> loop_vars(const std::string& prefix, const std::vector<Expr>& extents) {
  std::vector<Var> vars;
  for (size_t k = 0; k < extents.size(); ++k) {
    vars.push_back(make_var(prefix + std::to_string(k), extents[k].dtype()));
  }
  return vars;
}

GemmMatrix as_matrix(const TileRegion& r, const char* role) {
  std::vector<DimRef> dims = describe(r);
  std::vector<int> extended;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d].extent) extended.push_back(int(d));
  if (extended.size() > 2) {  // drop unit slices, keeping the last two dims otherwise
    std::vector<int> non_unit;
    for (int d : extended)
      if (!dims[d].is_unit()) non_unit.push_back(d);
    extended = non_unit.size() >= 2 ? std::vector<int>(non_unit.end() - 2, non_unit.end())
                                    : std::vector<int>(extended.end() - 2, extended.end());
  }
  if (extended.size() != 2) {
    throw IRError(
        fmt::format("T.gemm operand {} ('{}') must be a 2-D tile (a 2-D buffer or a "
                    "region with two sliced dimensions); it has {}",
                    role, r.buffer->name, extended.size()));
  }
  GemmMatrix m;
  m.buffer = r.buffer;
  for (const auto& d : dims) m.starts.push_back(d.start);
  m.row_dim = extended[0];
  m.col_dim = extended[1];
  m.rows = *dims[m.row_dim].extent;
  m.cols = *dims[m.col_dim].extent;
  return m;
}

void check_same_extent(const Expr& a, const Expr& b, const std::string& what) {
  auto* x = as_const_int(a);
  auto* y = as_const_int(b);
  if (x && y && *x != *y) {
    throw IRError(
        fmt::format("T.gemm shapes disagree: {} is {} on one operand and {} on the "
                    "other (A is MxK, B is KxN, C is MxN; transposes swap A's/B's dims)",
                    what, *x, *y));
  }
}

// Every tile op and scheduled loop goes to the implementation the registry selects for
// the target (tile_op_impl.h); scheduled loops after their bodies are lowered.
class TileOpLowerer : public StmtMutator {
 public:
  explicit TileOpLowerer(const target::Target& target) : target_(target) {}

 protected:
  Stmt mutate_copy(const CopyNode*, const Stmt& self) override { return lower(self); }
  Stmt mutate_fill(const FillNode*, const Stmt& self) override { return lower(self); }
  Stmt mutate_gemm(const GemmNode*, const Stmt& self) override { return lower(self); }
  Stmt mutate_reduce(const ReduceNode*, const Stmt& self) override { return lower(self); }

  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Stmt lowered = StmtMutator::mutate_for(op, self);
    if (!tile_op_kind_of(lowered)) return lowered;
    return lower(lowered);
  }

 private:
  Stmt lower(const Stmt& op) { return lower_tile_op(op, target_); }

  const target::Target& target_;
};

// The shared implementations: loop nests any target can run (a backend's registered
// implementations take precedence where they apply).
class GenericTileOps {
 public:
  static Stmt lower_copy(const CopyNode* op) {
    std::vector<DimRef> src = describe(op->src), dst = describe(op->dst);
    bool src_point = !op->src.is_whole() && op->src.is_point();
    bool dst_point = !op->dst.is_whole() && op->dst.is_point();
    auto non_unit = [](const std::vector<DimRef>& dims) {
      std::vector<int> out;
      for (size_t d = 0; d < dims.size(); ++d)
        if (!dims[d].is_unit()) out.push_back(int(d));
      return out;
    };
    std::vector<int> src_dims = non_unit(src), dst_dims = non_unit(dst);
    std::vector<Expr> extents;
    if (!src_point && !dst_point) {
      if (src_dims.size() != dst_dims.size()) {
        throw IRError(fmt::format(
            "T.copy from {} to {}: the regions have {} and {} non-unit dimensions; their extents "
            "must agree once unit dimensions are dropped",
            region_text(op->src), region_text(op->dst), src_dims.size(), dst_dims.size()));
      }
      for (size_t k = 0; k < src_dims.size(); ++k) {
        Expr a = *src[src_dims[k]].extent, b = *dst[dst_dims[k]].extent;
        auto *x = as_const_int(a), *y = as_const_int(b);
        if (x && y && *x != *y) {
          throw IRError(
              fmt::format("T.copy from {} to {}: extent {} of the source does not match "
                          "extent {} of the destination (dimension {} of the copy)",
                          region_text(op->src), region_text(op->dst), *x, *y, k));
        }
        extents.push_back(x ? a : b);
      }
    } else if (src_point && dst_point) {
      // Two element subscripts: a single element.
    } else {
      // The point side takes the other side's extents on its trailing dims.
      const auto& full = src_point ? dst : src;
      auto& point = src_point ? src : dst;
      auto& point_dims = src_point ? src_dims : dst_dims;
      const auto& full_dims = src_point ? dst_dims : src_dims;
      if (full_dims.size() > point.size()) {
        throw IRError(
            fmt::format("T.copy from {} to {}: a {}-D region cannot start at an element "
                        "of the {}-D buffer '{}'",
                        region_text(op->src), region_text(op->dst), full_dims.size(), point.size(),
                        (src_point ? op->src : op->dst).buffer->name));
      }
      point_dims.clear();
      // The full side's whole shape, unit dimensions included, lines up with the point
      // side's trailing dimensions (as the interpreter and TileLang read it: a (bm, 1)
      // tile copied to C[i, j] fills rows i..i+bm of column j); only when the full side
      // has more dimensions than the point side are its unit dimensions dropped first.
      bool whole_shape = full.size() <= point.size();
      size_t offset = point.size() - (whole_shape ? full.size() : full_dims.size());
      for (size_t k = 0; k < full_dims.size(); ++k) {
        size_t d = offset + (whole_shape ? size_t(full_dims[k]) : k);
        point[d].extent = full[full_dims[k]].extent;
        point_dims.push_back(int(d));
        extents.push_back(*full[full_dims[k]].extent);
      }
    }
    std::vector<Var> vars = loop_vars("i", extents);
    auto indices = [&](const std::vector<DimRef>& dims, const std::vector<int>& mapped) {
      std::vector<Expr> idx;
      for (const auto& d : dims) idx.push_back(d.start);
      for (size_t k = 0; k < mapped.size(); ++k) {
        int d = mapped[k];
        idx[d] = simplify(idx[d] + cast(idx[d].dtype(), vars[k]));
      }
      return idx;
    };
    std::vector<Expr> src_idx = indices(src, src_dims), dst_idx = indices(dst, dst_dims);
    Expr value = load(op->src.buffer, src_idx);
    if (!op->src.is_whole()) {
      Expr ok = in_bounds(op->src.buffer, src_idx);
      if (!is_const_int(ok, 1)) value = select(ok, value, make_zero(value.dtype()));
    }
    Stmt body = store(op->dst.buffer, dst_idx, value);
    if (!op->dst.is_whole()) {
      Expr ok = in_bounds(op->dst.buffer, dst_idx);
      if (!is_const_int(ok, 1)) body = if_then_else(ok, body);
    }
    return nest(vars, extents, body, ForKind::kParallel, ForKind::kParallel);
  }

  static Stmt lower_fill(const FillNode* op) {
    std::vector<DimRef> dims = describe(op->dst);
    std::vector<Expr> extents;
    std::vector<int> mapped;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].is_unit()) continue;
      mapped.push_back(int(d));
      extents.push_back(*dims[d].extent);
    }
    std::vector<Var> vars = loop_vars("i", extents);
    std::vector<Expr> idx;
    for (const auto& d : dims) idx.push_back(d.start);
    for (size_t k = 0; k < mapped.size(); ++k) {
      idx[mapped[k]] = simplify(idx[mapped[k]] + cast(idx[mapped[k]].dtype(), vars[k]));
    }
    Stmt body = store(op->dst.buffer, idx, op->value);
    if (!op->dst.is_whole()) {
      Expr ok = in_bounds(op->dst.buffer, idx);
      if (!is_const_int(ok, 1)) body = if_then_else(ok, body);
    }
    return nest(vars, extents, body, ForKind::kParallel, ForKind::kParallel);
  }

  static Stmt lower_gemm(const GemmNode* op) {
    GemmOperands g = analyze_gemm(*op);
    const GemmMatrix &a = g.a, &b = g.b, &c = g.c;
    const Expr &M = g.M, &N = g.N, &K = g.K;
    Var m = make_var("m", M.dtype()), n = make_var("n", N.dtype()), k = make_var("k", K.dtype());
    Expr av = op->transpose_a ? a.at(k, m) : a.at(m, k);
    Expr bv = op->transpose_b ? b.at(n, k) : b.at(k, n);
    Expr product = binary(BinaryOp::kMul, cast(g.acc, av), cast(g.acc, bv));
    Stmt update = store(c.buffer, c.indices(m, n), binary(BinaryOp::kAdd, c.at(m, n), product));
    Stmt loops;
    if (op->transpose_b) {
      // B^T rows are contiguous along k: keep k innermost (a serial sum, k ascending).
      loops = for_loop(
          m, make_zero(M.dtype()), M,
          for_loop(n, make_zero(N.dtype()), N, for_loop(k, make_zero(K.dtype()), K, update)));
    } else {
      // m, k, n: the innermost loop walks C and B rows contiguously and vectorizes;
      // each C element still sums over k in ascending order.
      loops = for_loop(m, make_zero(M.dtype()), M,
                       for_loop(k, make_zero(K.dtype()), K,
                                for_loop(n, make_zero(N.dtype()), N, update, ForKind::kParallel)));
    }
    return with_clear_accum(*op, g, loops);
  }

  static Stmt lower_reduce(const ReduceNode* op) {
    const Buffer& src = op->src;
    const Buffer& dst = op->dst;
    int nd = src->ndim();
    if (op->dim < 0 || op->dim >= nd) {
      throw IRError(fmt::format("T.reduce_{} over dim {} of '{}', which has {} dimensions",
                                to_string(op->reduce_kind), op->dim, src->name, nd));
    }
    bool keeps_dim = dst->ndim() == nd;
    if (!keeps_dim && dst->ndim() != nd - 1) {
      throw IRError(fmt::format(
          "T.reduce_{}: destination '{}' must have {} dimensions ('{}' "
          "without dim {}), it has {}",
          to_string(op->reduce_kind), dst->name, nd - 1, src->name, op->dim, dst->ndim()));
    }
    std::vector<Var> vars;
    for (int d = 0; d < nd; ++d)
      vars.push_back(make_var("r" + std::to_string(d), src->shape[d].dtype()));
    std::vector<Expr> src_idx(vars.begin(), vars.end());
    std::vector<Expr> dst_idx;
    for (int d = 0; d < nd; ++d) {
      if (d != op->dim)
        dst_idx.push_back(vars[d]);
      else if (keeps_dim)
        dst_idx.push_back(make_zero(vars[d].dtype()));
    }
    DataType t = dst->dtype;
    bool absolute =
        op->reduce_kind == ReduceKind::kAbsSum || op->reduce_kind == ReduceKind::kAbsMax;
    Expr x = cast(t, load(src, src_idx));
    if (absolute) x = call("abs", {x});
    Expr combined = reduce_combine(op->reduce_kind, load(dst, dst_idx), x);
    std::vector<Expr> extents(src->shape.begin(), src->shape.end());
    // Walk src row-major; the innermost loop is independent unless it is the reduced dim.
    ForKind inner = op->dim == nd - 1 ? ForKind::kSerial : ForKind::kParallel;
    Stmt accumulate = nest(vars, extents, store(dst, dst_idx, combined), inner, ForKind::kSerial);
    if (!op->clear) return accumulate;
    std::vector<Var> init_vars = loop_vars("i", dst->shape);
    std::vector<Expr> init_idx(init_vars.begin(), init_vars.end());
    Stmt init =
        nest(init_vars, dst->shape, store(dst, init_idx, reduce_identity(op->reduce_kind, t)),
             ForKind::kParallel, ForKind::kParallel);
    return seq({init, accumulate});
  }
};

template <class Node, Stmt (*Lower)(const Node*)>
std::optional<Stmt> generic(const Stmt& op, const target::Target&) {
  return Lower(op.as<Node>());
}

// Scheduled loops are kept for the target's codegen (threads, software pipelines).
std::optional<Stmt> keep_scheduled_loop(const Stmt& loop, const target::Target&) {
  return loop;
}

}  // namespace

Expr GemmMatrix::at(const Expr& r, const Expr& c) const {
  return load(buffer, indices(r, c));
}

std::vector<Expr> GemmMatrix::indices(const Expr& r, const Expr& c) const {
  std::vector<Expr> idx = starts;
  idx[row_dim] = simplify(idx[row_dim] + r);
  idx[col_dim] = simplify(idx[col_dim] + c);
  return idx;
}

GemmOperands analyze_gemm(const GemmNode& op) {
  GemmOperands g{as_matrix(op.a, "A"), as_matrix(op.b, "B"), as_matrix(op.c, "C"), {}, {}, {}, {}};
  g.M = g.c.rows;
  g.N = g.c.cols;
  Expr a_m = op.transpose_a ? g.a.cols : g.a.rows, a_k = op.transpose_a ? g.a.rows : g.a.cols;
  Expr b_k = op.transpose_b ? g.b.cols : g.b.rows, b_n = op.transpose_b ? g.b.rows : g.b.cols;
  check_same_extent(a_m, g.M, "M");
  check_same_extent(b_n, g.N, "N");
  check_same_extent(a_k, b_k, "K");
  g.K = as_const_int(a_k) ? a_k : b_k;
  g.acc = g.c.buffer->dtype;
  return g;
}

Stmt with_clear_accum(const GemmNode& op, const GemmOperands& g, Stmt loops) {
  if (!op.clear_accum) return loops;
  Var zm = make_var("m", g.M.dtype()), zn = make_var("n", g.N.dtype());
  Stmt clear = for_loop(
      zm, make_zero(g.M.dtype()), g.M,
      for_loop(zn, make_zero(g.N.dtype()), g.N,
               store(g.c.buffer, g.c.indices(zm, zn), make_zero(g.acc)), ForKind::kParallel),
      ForKind::kParallel);
  return seq({clear, std::move(loops)});
}

namespace detail {

std::vector<TileOpImpl> generic_tile_op_impls() {
  return {
      {"generic.copy",
       TileOpKind::kCopy,
       {},
       kGenericTileOpPriority,
       generic<CopyNode, &GenericTileOps::lower_copy>},
      {"generic.fill",
       TileOpKind::kFill,
       {},
       kGenericTileOpPriority,
       generic<FillNode, &GenericTileOps::lower_fill>},
      {"generic.gemm",
       TileOpKind::kGemm,
       {},
       kGenericTileOpPriority,
       generic<GemmNode, &GenericTileOps::lower_gemm>},
      {"generic.reduce",
       TileOpKind::kReduce,
       {},
       kGenericTileOpPriority,
       generic<ReduceNode, &GenericTileOps::lower_reduce>},
      {"generic.scheduled_loop",
       TileOpKind::kScheduledLoop,
       {},
       kGenericTileOpPriority,
       keep_scheduled_loop},
  };
}

}  // namespace detail

Stmt elementwise_copy(const CopyNode& op) {
  return GenericTileOps::lower_copy(&op);
}

Stmt elementwise_fill(const FillNode& op) {
  return GenericTileOps::lower_fill(&op);
}

Stmt lower_tile_ops(const Stmt& body, const target::Target& target) {
  return TileOpLowerer(target).mutate(body);
}

IRModule lower_tile_ops(const IRModule& mod, const target::Target& target) {
  return map_function_bodies(mod,
                             [&](const PrimFunc& f) { return lower_tile_ops(f->body, target); });
}

Pass lower_tile_ops_pass() {
  return Pass{"tilec.lower_tile_ops", [](const IRModule& mod, const PassInfo& info) {
                return lower_tile_ops(mod, info.target);
              }};
}

}  // namespace tilec::transform
