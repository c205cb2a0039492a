// T.gemm on CPU targets as register-blocked micro-kernels (the design is described in
// include/tilec/cpu/tile_ops.h; the block shapes and chunk sizes in gemm_blocking.h).
#include "tilec/cpu/cpu_resources.h"
#include "tilec/cpu/gemm_blocking.h"
#include "tilec/cpu/tile_ops.h"
#include "tilec/ir/stmt.h"
#include "tilec/transform/gemm_operands.h"
#include "tilec/transform/pass_context.h"
#include "tilec/transform/simplify.h"

#include <functional>
#include <optional>

namespace tilec::cpu {

using namespace ir;
using transform::GemmMatrix;

namespace {

std::optional<int64_t> constant(const Expr& e) {
  if (const int64_t* c = as_const_int(e)) return *c;
  return std::nullopt;
}

// One T.gemm lowered for one micro-kernel shape. All index arithmetic is in the dtype
// of M; extents are Exprs that simplify() folds when they are constant, so constant and
// symbolic shapes share one emitter and differ only in how remainders are split.
class CpuGemm {
 public:
  CpuGemm(const GemmNode& op, const transform::GemmOperands& g, MicroKernelShape shape,
          const CacheSizes& caches, bool fused)
      : op_(op), g_(g), s_(shape), fused_(fused), it_(g.M.dtype()) {
    M_ = index(g.M), N_ = index(g.N), K_ = index(g.K);
    acc_ = g.c.buffer->dtype;
    pack_a_ = g.a.buffer->dtype != acc_;
    pack_b_ = op.transpose_b || g.b.buffer->dtype != acc_;
    const int64_t acc_bytes = std::max(1, acc_.bytes());
    kc_ = k_chunk(caches, s_, acc_);
    std::optional<int64_t> k = constant(K_), m = constant(M_), n = constant(N_);
    chunk_k_ = !k || *k > kc_;
    if (!chunk_k_) kc_ = *k;
    mc_ = m_chunk(caches, s_, kc_, pack_a_ ? acc_bytes : std::max(1, g.a.buffer->dtype.bytes()),
                  pack_a_);
    chunk_m_ = !m || *m > mc_;
    if (!chunk_m_) mc_ = *m;
    nc_ = n_chunk(caches, s_, kc_, acc_bytes);
    chunk_n_ = pack_b_ && (!n || *n > nc_);
    if (!chunk_n_ && n) nc_ = *n;
  }

  Stmt lower() {
    Var nc = make_var("nc", it_), kc = make_var("kc", it_), mc = make_var("mc", it_);
    // Goto's loop order: a chunk of columns, a chunk of k (its panel of B packed when
    // B is packed), a chunk of rows (its block of A packed when A is), then the blocks.
    auto rows_chunk = [&](const Expr& n0, const Expr& ncols, const Expr& k0, const Expr& klen) {
      auto body = [&](const Expr& m0, const Expr& mrows) {
        Stmt blocks =
            each_column_block(n0, ncols, [&](const Expr& col, int64_t groups, const Expr& lanes) {
              return each_row_block(m0, mrows, [&](const Expr& row, int64_t rows) {
                return micro_kernel(row, rows, col, groups, lanes, k0, klen, m0, n0);
              });
            });
        return pack_a_ ? seq({pack_a(m0, mrows, k0, klen), blocks}) : blocks;
      };
      if (!chunk_m_) return body(zero(), M_);
      Expr m0 = mc * c(mc_);
      return for_loop(mc, zero(), ceil_div(M_, mc_),
                      let_extent("mrows", min(c(mc_), M_ - m0),
                                 [&](const Expr& rows) { return body(m0, rows); }));
    };
    auto k_chunks = [&](const Expr& n0, const Expr& ncols) {
      auto body = [&](const Expr& k0, const Expr& klen) {
        Stmt rest = rows_chunk(n0, ncols, k0, klen);
        return pack_b_ ? seq({pack_b(n0, ncols, k0, klen), rest}) : rest;
      };
      if (!chunk_k_) return body(zero(), K_);
      Expr k0 = kc * c(kc_);
      return for_loop(kc, zero(), ceil_div(K_, kc_),
                      let_extent("klen", min(c(kc_), K_ - k0),
                                 [&](const Expr& klen) { return body(k0, klen); }));
    };
    Stmt nest;
    if (!chunk_n_) {
      nest = k_chunks(zero(), N_);
    } else {
      Expr n0 = nc * c(nc_);
      nest = for_loop(nc, zero(), ceil_div(N_, nc_),
                      let_extent("ncols", min(c(nc_), N_ - n0),
                                 [&](const Expr& ncols) { return k_chunks(n0, ncols); }));
    }
    if (pack_b_) nest = allocate(b_panel(), nest);
    if (pack_a_) nest = allocate(a_panel(), nest);
    return nest;
  }

 private:
  Expr index(const Expr& e) const { return e.dtype() == it_ ? e : cast(it_, e); }
  Expr c(int64_t v) const { return make_int(v, it_); }
  Expr zero() const { return c(0); }
  Expr ceil_div(const Expr& e, int64_t d) const {
    return transform::simplify(floordiv(e + c(d - 1), c(d)));
  }
  Expr fold(const Expr& e) const { return transform::simplify(e); }

  // body(extent): the extent itself when it folds to a constant, else a let-bound var.
  Stmt let_extent(const std::string& name, const Expr& value,
                  const std::function<Stmt(const Expr&)>& body) const {
    Expr v = fold(value);
    if (constant(v)) return body(v);
    Var var = make_var(name, it_);
    return let(var, v, body(var));
  }

  // ------------------------------------------------------------------ packing
  // A packed block of A: acc dtype, in A's own orientation (rows x k, or k x rows when
  // A is transposed), so the packing reads and writes along the same contiguous axis.
  Buffer a_panel() {
    if (!a_panel_) {
      std::vector<Expr> shape = {c(mc_), c(kc_)};
      if (op_.transpose_a) std::swap(shape[0], shape[1]);
      a_panel_ = make_buffer("a_panel", shape, acc_, StorageScope::kLocal);
    }
    return *a_panel_;
  }
  // A packed panel of B: k x columns in acc dtype (a transposed B is turned around).
  Buffer b_panel() {
    if (!b_panel_) b_panel_ = make_buffer("b_panel", {c(kc_), c(nc_)}, acc_, StorageScope::kLocal);
    return *b_panel_;
  }

  Stmt pack_a(const Expr& m0, const Expr& mrows, const Expr& k0, const Expr& klen) {
    Var r = make_var("pr", it_), k = make_var("pk", it_);
    if (op_.transpose_a) {
      Stmt copy = store(a_panel(), {k, r}, cast(acc_, g_.a.at(fold(k0 + k), fold(m0 + r))));
      return for_loop(k, zero(), klen, for_loop(r, zero(), mrows, copy, ForKind::kVectorized));
    }
    Stmt copy = store(a_panel(), {r, k}, cast(acc_, g_.a.at(fold(m0 + r), fold(k0 + k))));
    return for_loop(r, zero(), mrows, for_loop(k, zero(), klen, copy, ForKind::kVectorized));
  }

  Stmt pack_b(const Expr& n0, const Expr& ncols, const Expr& k0, const Expr& klen) {
    Var k = make_var("pk", it_), n = make_var("pn", it_);
    Expr value =
        op_.transpose_b ? g_.b.at(fold(n0 + n), fold(k0 + k)) : g_.b.at(fold(k0 + k), fold(n0 + n));
    Stmt copy = store(b_panel(), {k, n}, cast(acc_, value));
    return for_loop(k, zero(), klen, for_loop(n, zero(), ncols, copy, ForKind::kVectorized));
  }

  // Element (row, k) of A and (k, col) of B in acc dtype, from the packed copies when
  // there are any (m0, n0, k0: where the packed chunk starts).
  Expr a_at(const Expr& row, const Expr& k, const Expr& m0, const Expr& k0) {
    if (pack_a_) {
      Expr r = fold(row - m0), kk = fold(k - k0);
      return op_.transpose_a ? load(a_panel(), {kk, r}) : load(a_panel(), {r, kk});
    }
    return cast(acc_, op_.transpose_a ? g_.a.at(k, row) : g_.a.at(row, k));
  }
  Expr b_at(const Expr& k, const Expr& col, const Expr& n0, const Expr& k0) {
    if (pack_b_) return load(b_panel(), {fold(k - k0), fold(col - n0)});
    return cast(acc_, g_.b.at(k, col));
  }

  // ------------------------------------------------------------------ blocks
  // fn(row, rows) over [row0, row0 + count): full blocks of s_.rows, then the rest as
  // one block of the remaining rows (constant count) or, symbolic, as blocks of the
  // powers of two the remainder has (at most log2(rows) more micro-kernels).
  Stmt each_row_block(const Expr& row0, const Expr& count,
                      const std::function<Stmt(const Expr&, int64_t)>& fn) {
    const int64_t R = s_.rows;
    std::vector<Stmt> parts;
    Var m = make_var("m0", it_);
    if (auto n = constant(count)) {
      int64_t full = *n / R, rest = *n % R;
      if (full == 1) parts.push_back(fn(row0, R));
      if (full > 1) parts.push_back(for_loop(m, zero(), c(full), fn(fold(row0 + m * c(R)), R)));
      if (rest) parts.push_back(fn(fold(row0 + c(full * R)), rest));
      return seq(parts);
    }
    Expr full = floordiv(count, c(R));
    parts.push_back(for_loop(m, zero(), full, fn(fold(row0 + m * c(R)), R)));
    Var left = make_var("rows_left", it_);
    Expr base = fold(row0 + full * c(R));
    std::vector<Stmt> tails;
    for (int64_t bit = 1; bit < R; bit *= 2) {
      // Rows of the higher bits come first: this block starts past them.
      Expr start = fold(base + left - floormod(left, c(2 * bit)));
      tails.insert(tails.begin(),
                   if_then_else(eq(floormod(floordiv(left, c(bit)), c(2)), c(1)), fn(start, bit)));
    }
    if (!tails.empty()) parts.push_back(let(left, fold(count - full * c(R)), seq(tails)));
    return seq(parts);
  }

  // fn(col, groups, lanes) over [col0, col0 + count): full blocks of s_.groups vectors,
  // then one block of the whole vectors left, then one of the lanes left (fewer than a
  // vector: a narrower vector loop).
  Stmt each_column_block(const Expr& col0, const Expr& count,
                         const std::function<Stmt(const Expr&, int64_t, const Expr&)>& fn) {
    const int64_t NR = s_.columns(), L = s_.lanes;
    std::vector<Stmt> parts;
    Var n = make_var("n0", it_);
    if (auto total = constant(count)) {
      int64_t full = *total / NR, rest = *total % NR;
      if (full == 1) parts.push_back(fn(col0, s_.groups, c(L)));
      if (full > 1)
        parts.push_back(for_loop(n, zero(), c(full), fn(fold(col0 + n * c(NR)), s_.groups, c(L))));
      Expr base = fold(col0 + c(full * NR));
      if (rest / L) parts.push_back(fn(base, rest / L, c(L)));
      if (rest % L) parts.push_back(fn(fold(base + c(rest / L * L)), 1, c(rest % L)));
      return seq(parts);
    }
    Expr full = floordiv(count, c(NR));
    parts.push_back(for_loop(n, zero(), full, fn(fold(col0 + n * c(NR)), s_.groups, c(L))));
    Var left = make_var("cols_left", it_), q = make_var("q", it_);
    Expr base = fold(col0 + full * c(NR));
    Stmt vectors = for_loop(q, zero(), floordiv(left, c(L)), fn(fold(base + q * c(L)), 1, c(L)));
    Var lanes = make_var("lanes_left", it_);
    Stmt tail =
        let(lanes, floormod(left, c(L)),
            if_then_else(lanes > zero(), fn(fold(base + floordiv(left, c(L)) * c(L)), 1, lanes)));
    parts.push_back(let(left, fold(count - full * c(NR)), seq({vectors, tail})));
    return seq(parts);
  }

  // C[row0 + i, col0 + g * lanes + j] for i < rows, g < groups, j < lanes, summed over
  // k in [k0, k0 + klen): each lane j of the vectorized loop keeps its rows x groups
  // accumulators in a small tile indexed only by constants (so in registers), loaded
  // from C before the k loop and stored after it. Each C element still adds its
  // products one at a time in ascending k.
  Stmt micro_kernel(const Expr& row0, int64_t rows, const Expr& col0, int64_t groups,
                    const Expr& lanes, const Expr& k0, const Expr& klen, const Expr& m0,
                    const Expr& n0) {
    Var j = make_var("j", it_), k = make_var("k", it_);
    Buffer acc = make_buffer("acc", {c(groups), c(rows)}, acc_, StorageScope::kLocal);
    auto row = [&](int64_t i) { return fold(row0 + c(i)); };
    auto col = [&](int64_t g) { return fold(col0 + c(g * s_.lanes) + j); };
    std::vector<Stmt> load_c, update, store_c;
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t i = 0; i < rows; ++i) {
        load_c.push_back(store(acc, {c(g), c(i)}, g_.c.at(row(i), col(g))));
        store_c.push_back(
            store(g_.c.buffer, g_.c.indices(row(i), col(g)), load(acc, {c(g), c(i)})));
      }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t g = 0; g < groups; ++g) {
        Expr x = a_at(row(i), k, m0, k0), y = b_at(k, col(g), n0, k0);
        Expr sum = load(acc, {c(g), c(i)});
        // 16-bit accumulators round every step, and one rounding per fused step drifts from
        // the interpreter's two by more than the float16 tolerance over a long k loop.
        Expr next = fused_ && acc_.is_float() && acc_.bits >= 32
                        ? call("fma", {x, y, sum})
                        : binary(BinaryOp::kAdd, sum, binary(BinaryOp::kMul, x, y));
        update.push_back(store(acc, {c(g), c(i)}, next));
      }
    Stmt k_loop = for_loop(k, k0, fold(k0 + klen), seq(update));
    Stmt body = allocate(acc, seq({seq(load_c), k_loop, seq(store_c)}));
    // The lanes are independent (distinct C columns): vectorized as they stand, not left
    // to vectorize_loops, which only vectorizes innermost loops.
    return for_loop(j, zero(), lanes, body, ForKind::kVectorized);
  }

  const GemmNode& op_;
  const transform::GemmOperands& g_;
  MicroKernelShape s_;
  bool fused_;
  DataType it_, acc_;
  Expr M_, N_, K_;
  bool pack_a_ = false, pack_b_ = false, chunk_k_ = false, chunk_m_ = false, chunk_n_ = false;
  int64_t kc_ = 0, mc_ = 0, nc_ = 0;
  std::optional<Buffer> a_panel_, b_panel_;
};

}  // namespace

MicroKernelShape micro_kernel_for(const target::Target& target, DataType acc,
                                  std::optional<int64_t> M, std::optional<int64_t> N) {
  MicroKernelShape shape = choose_micro_kernel(vector_unit_for(target), acc, M, N);
  const auto& config = transform::PassContext::current();
  if (int64_t rows = config.get_int(kGemmMicroRowsConfigKey); rows > 0) shape.rows = rows;
  if (int64_t groups = config.get_int(kGemmMicroGroupsConfigKey); groups > 0) shape.groups = groups;
  return shape;
}

std::optional<Stmt> lower_gemm_register_blocked(const Stmt& op, const target::Target& target) {
  const auto* gemm = op.as<GemmNode>();
  transform::GemmOperands g = transform::analyze_gemm(*gemm);
  bool fused = transform::PassContext::current().get_bool(kGemmFmaConfigKey);
  MicroKernelShape shape =
      micro_kernel_for(target, g.c.buffer->dtype, constant(g.M), constant(g.N));
  Stmt blocked = CpuGemm(*gemm, g, shape, host_cache_sizes(), fused).lower();
  return transform::with_clear_accum(*gemm, g, std::move(blocked));
}

}  // namespace tilec::cpu
