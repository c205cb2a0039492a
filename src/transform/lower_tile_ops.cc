#include "tilec/transform/lower_tile_ops.h"

#include "tilec/ir/mutator.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

#include <algorithm>

namespace tilec::transform {

using namespace ir;

namespace {

// The gemm micro-kernel computes a block of C of kMicroRowChoices rows by
// kMicroColumnGroupChoices groups of one vector of columns (64 bytes of the
// accumulator dtype: 16 float32 lanes, one AVX-512 register), best choice first. The
// vector lanes are the loop the C compiler vectorizes, with the k loop inside it
// (outer-loop vectorization), so each accumulator element is one register. Rows and
// groups stay <= 8: the C printer unrolls kUnrolled loops by 8, and the accumulator
// is only kept in registers when those loops unroll completely. Measured with gcc 12
// -O3 -march=native on an AVX-512 AMD EPYC, 1024^3 float32, one thread: 8 rows x 2
// groups (16 accumulator registers) 180 GFLOP/s; 8x1 168, 16x1 162, 4x4 155, 4x2 140;
// the earlier 8x64 accumulator tile indexed inside the k loop stayed in memory (85).
constexpr int64_t kMicroRowChoices[] = {8, 4, 2};
constexpr int64_t kMicroColumnGroupChoices[] = {2, 1};
constexpr int64_t kMicroVectorBytes = 64;

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

// A 2-D view of a gemm operand: rows/cols of the region, in the buffer's dims.
struct Matrix {
  Buffer buffer;
  std::vector<Expr> starts;
  int row_dim = 0, col_dim = 1;
  Expr rows, cols;
  Expr at(const Expr& r, const Expr& c) const {
    std::vector<Expr> idx = starts;
    idx[row_dim] = simplify(idx[row_dim] + r);
    idx[col_dim] = simplify(idx[col_dim] + c);
    return load(buffer, idx);
  }
  std::vector<Expr> indices(const Expr& r, const Expr& c) const {
    std::vector<Expr> idx = starts;
    idx[row_dim] = simplify(idx[row_dim] + r);
    idx[col_dim] = simplify(idx[col_dim] + c);
    return idx;
  }
};

Matrix as_matrix(const TileRegion& r, const char* role) {
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
  Matrix m;
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

class TileOpLowerer : public StmtMutator {
 protected:
  Stmt mutate_copy(const CopyNode* op, const Stmt&) override { return lower_copy(op); }
  Stmt mutate_fill(const FillNode* op, const Stmt&) override { return lower_fill(op); }
  Stmt mutate_gemm(const GemmNode* op, const Stmt&) override { return lower_gemm(op); }
  Stmt mutate_reduce(const ReduceNode* op, const Stmt&) override { return lower_reduce(op); }

  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Stmt lowered = StmtMutator::mutate_for(op, self);
    if (op->for_kind != ForKind::kPipelined && op->for_kind != ForKind::kThreadBinding) {
      return lowered;
    }
    // Pipelining is a scheduling hint and threads run as loops: both are serial here.
    auto n = copy_node(lowered.as<ForNode>());
    n->for_kind = ForKind::kSerial;
    n->num_stages = 0;
    n->thread_tag.clear();
    return Stmt(n);
  }

 private:
  Stmt lower_copy(const CopyNode* op) {
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
      size_t offset = point.size() - full_dims.size();
      for (size_t k = 0; k < full_dims.size(); ++k) {
        point[offset + k].extent = full[full_dims[k]].extent;
        point_dims.push_back(int(offset + k));
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

  Stmt lower_fill(const FillNode* op) {
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

  Stmt lower_gemm(const GemmNode* op) {
    Matrix a = as_matrix(op->a, "A"), b = as_matrix(op->b, "B"), c = as_matrix(op->c, "C");
    Expr M = c.rows, N = c.cols;
    Expr a_m = op->transpose_a ? a.cols : a.rows, a_k = op->transpose_a ? a.rows : a.cols;
    Expr b_k = op->transpose_b ? b.cols : b.rows, b_n = op->transpose_b ? b.rows : b.cols;
    check_same_extent(a_m, M, "M");
    check_same_extent(b_n, N, "N");
    check_same_extent(a_k, b_k, "K");
    Expr K = as_const_int(a_k) ? a_k : b_k;
    DataType acc = c.buffer->dtype;
    Var m = make_var("m", M.dtype()), n = make_var("n", N.dtype()), k = make_var("k", K.dtype());
    Expr av = op->transpose_a ? a.at(k, m) : a.at(m, k);
    Expr bv = op->transpose_b ? b.at(n, k) : b.at(k, n);
    Expr product = binary(BinaryOp::kMul, cast(acc, av), cast(acc, bv));
    Stmt update = store(c.buffer, c.indices(m, n), binary(BinaryOp::kAdd, c.at(m, n), product));
    Stmt loops;
    if (auto blocked = register_blocked_gemm(op, a, b, c, M, N, K)) {
      loops = *blocked;
    } else if (op->transpose_b) {
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
    if (!op->clear_accum) return loops;
    Var zm = make_var("m", M.dtype()), zn = make_var("n", N.dtype());
    Stmt clear =
        for_loop(zm, make_zero(M.dtype()), M,
                 for_loop(zn, make_zero(N.dtype()), N,
                          store(c.buffer, c.indices(zm, zn), make_zero(acc)), ForKind::kParallel),
                 ForKind::kParallel);
    return seq({clear, loops});
  }

  // C in blocks of rows x (groups x lanes) columns. For each lane j of a vector of
  // columns the block's rows x groups elements sit in a small local accumulator indexed
  // only by unrolled loops, across the whole k loop:
  //   for m0, n0: for j (lanes, vectorized): acc = C; for k: acc[g][i] += a(i,k) b(k,col);
  //   C = acc
  // The C compiler vectorizes the j loop around the k loop and keeps every acc element
  // in one vector register. Each C element still starts from its current value and adds
  // its products one at a time in ascending k. Needs constant shapes with M divisible
  // by a row choice and N by the lanes; otherwise the plain nest is used. A transposed
  // A is only indexed the other way (a(i, k) is a scalar broadcast either way). A
  // transposed B (an N x K tile) is first copied, unchanged, into a local K x N panel,
  // so the lanes read consecutive columns as in the plain case; the copy is K x N
  // loads against M x N x K multiply-adds. Measured as above (bench_kernels, 1024^3
  // float32 with B stored N x K, 64x64x32 blocks, 2 threads): the scalar k-innermost
  // nest 21 GFLOP/s, the panel 250 (the plain GEMM 355; the scalar transposing copy is
  // most of the difference).
  static std::optional<Stmt> register_blocked_gemm(const GemmNode* op, const Matrix& a,
                                                   const Matrix& b_in, const Matrix& c,
                                                   const Expr& M, const Expr& N, const Expr& K) {
    const int64_t *m_extent = as_const_int(M), *n_extent = as_const_int(N),
                  *k_extent = as_const_int(K);
    if (!m_extent || !n_extent || !k_extent) return std::nullopt;
    DataType acc = c.buffer->dtype;
    const int64_t lanes = std::max<int64_t>(1, kMicroVectorBytes / std::max(1, acc.bytes()));
    int64_t rows = 0, groups = 0;
    for (int64_t r : kMicroRowChoices)
      if (*m_extent % r == 0) {
        rows = r;
        break;
      }
    for (int64_t g : kMicroColumnGroupChoices)
      if (*n_extent % (g * lanes) == 0) {
        groups = g;
        break;
      }
    if (rows == 0 || groups == 0) return std::nullopt;
    DataType it = M.dtype();
    Matrix b = b_in;
    std::optional<Buffer> panel;
    Stmt fill_panel;
    if (op->transpose_b) {
      panel = make_buffer("b_panel", {make_int(*k_extent, it), make_int(*n_extent, it)},
                          b_in.buffer->dtype, StorageScope::kLocal);
      Var pk = make_var("pk", it), pn = make_var("pn", it);
      fill_panel = for_loop(pk, make_zero(it), make_int(*k_extent, it),
                            for_loop(pn, make_zero(it), make_int(*n_extent, it),
                                     store(*panel, {pk, pn}, b_in.at(pn, pk)), ForKind::kParallel),
                            ForKind::kParallel);
      b = Matrix{*panel, {make_zero(it), make_zero(it)}, 0, 1, K, N};
    }
    Buffer tile =
        make_buffer("acc", {make_int(groups, it), make_int(rows, it)}, acc, StorageScope::kLocal);
    Var m0 = make_var("m0", it), n0 = make_var("n0", it), j = make_var("j", it),
        k = make_var("k", it);
    auto row = [&](const Var& i) { return m0 * make_int(rows, it) + i; };
    auto col = [&](const Var& g) {
      return n0 * make_int(groups * lanes, it) + g * make_int(lanes, it) + j;
    };
    // for g, i (both unrolled, so acc is indexed by constants): body(g, i)
    auto each = [&](auto body) {
      Var g = make_var("g", it), i = make_var("i", it);
      return for_loop(
          g, make_zero(it), make_int(groups, it),
          for_loop(i, make_zero(it), make_int(rows, it), body(g, i), ForKind::kUnrolled),
          ForKind::kUnrolled);
    };
    Stmt load_tile = each([&](const Var& g, const Var& i) {
      return store(tile, {g, i}, c.at(row(i), col(g)));
    });
    Stmt update = each([&](const Var& g, const Var& i) {
      Expr av = op->transpose_a ? a.at(k, row(i)) : a.at(row(i), k);
      Expr product = binary(BinaryOp::kMul, cast(acc, av), cast(acc, b.at(k, col(g))));
      return store(tile, {g, i}, binary(BinaryOp::kAdd, load(tile, {g, i}), product));
    });
    Stmt store_tile = each([&](const Var& g, const Var& i) {
      return store(c.buffer, c.indices(row(i), col(g)), load(tile, {g, i}));
    });
    Stmt lane_body =
        allocate(tile, seq({load_tile, for_loop(k, make_zero(it), K, update), store_tile}));
    // The lanes are independent (distinct C columns): vectorized as they stand, not
    // left to vectorize_loops, which only vectorizes innermost loops.
    Stmt lanes_loop =
        for_loop(j, make_zero(it), make_int(lanes, it), lane_body, ForKind::kVectorized);
    Stmt blocks = for_loop(
        m0, make_zero(it), make_int(*m_extent / rows, it),
        for_loop(n0, make_zero(it), make_int(*n_extent / (groups * lanes), it), lanes_loop));
    if (!panel) return blocks;
    return allocate(*panel, seq({fill_panel, blocks}));
  }

  Stmt lower_reduce(const ReduceNode* op) {
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
    Expr current = load(dst, dst_idx);
    Expr combined;
    switch (op->reduce_kind) {
      case ReduceKind::kSum:
      case ReduceKind::kAbsSum:
        combined = binary(BinaryOp::kAdd, current, x);
        break;
      case ReduceKind::kMax:
      case ReduceKind::kAbsMax:
        combined = binary(BinaryOp::kMax, current, x);
        break;
      case ReduceKind::kMin:
        combined = binary(BinaryOp::kMin, current, x);
        break;
    }
    std::vector<Expr> extents(src->shape.begin(), src->shape.end());
    // Walk src row-major; the innermost loop is independent unless it is the reduced dim.
    ForKind inner = op->dim == nd - 1 ? ForKind::kSerial : ForKind::kParallel;
    Stmt accumulate = nest(vars, extents, store(dst, dst_idx, combined), inner, ForKind::kSerial);
    if (!op->clear) return accumulate;
    std::vector<Var> init_vars = loop_vars("i", dst->shape);
    std::vector<Expr> init_idx(init_vars.begin(), init_vars.end());
    Stmt init = nest(init_vars, dst->shape, store(dst, init_idx, identity(op->reduce_kind, t)),
                     ForKind::kParallel, ForKind::kParallel);
    return seq({init, accumulate});
  }

  static Expr identity(ReduceKind kind, DataType t) {
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
};

}  // namespace

Stmt lower_tile_ops(const Stmt& body) {
  return TileOpLowerer().mutate(body);
}

IRModule lower_tile_ops(const IRModule& mod) {
  return map_function_bodies(mod, [](const PrimFunc& f) { return lower_tile_ops(f->body); });
}

Pass lower_tile_ops_pass() {
  return Pass{"tilec.lower_tile_ops",
              [](const IRModule& mod, const PassInfo&) { return lower_tile_ops(mod); }};
}

}  // namespace tilec::transform
