#include "tilec/gpu/simt_gemm.h"

#include "tilec/gpu/simt_context.h"
#include "tilec/gpu/simt_tile_ops.h"
#include "tilec/transform/gemm_operands.h"

#include <fmt/format.h>

namespace tilec::gpu {

using namespace ir;

std::optional<MicroTile> choose_micro_tile(int64_t M, int64_t N, int64_t num_threads) {
  std::optional<MicroTile> best;
  if (M <= 0 || N <= 0 || num_threads <= 0) return best;
  for (int64_t tn = 1; tn <= num_threads; ++tn) {
    if (num_threads % tn != 0) continue;
    int64_t tm = num_threads / tn;
    if (M % tm != 0 || N % tn != 0) continue;
    MicroTile t{tm, tn, M / tm, N / tn};
    if (!best || t.TM + t.TN <= best->TM + best->TN) best = t;  // ties: the larger tn
  }
  return best;
}

FragmentLayout micro_tile_layout(int64_t M, int64_t N, const MicroTile& tile) {
  return make_layout(
      fmt::format("micro-tile {}x{}", tile.TM, tile.TN), {M, N}, tile.tm * tile.tn,
      tile.TM * tile.TN, [&](FragmentLayout& l) {
        const Var& i = l.index_vars[0];
        const Var& j = l.index_vars[1];
        l.thread_of =
            floormod(i, make_int(tile.tm)) * make_int(tile.tn) + floordiv(j, make_int(tile.TN));
        l.register_of =
            floordiv(i, make_int(tile.tm)) * make_int(tile.TN) + floormod(j, make_int(tile.TN));
        const Var& t = l.thread_var;
        const Var& r = l.register_var;
        l.element_of = {
            floordiv(r, make_int(tile.TN)) * make_int(tile.tm) + floordiv(t, make_int(tile.tn)),
            floormod(t, make_int(tile.tn)) * make_int(tile.TN) + floormod(r, make_int(tile.TN))};
      });
}

namespace {

// A fragment accumulator C[M, N] of constant shape, used whole: its registers can be
// addressed by a layout.
std::optional<std::pair<int64_t, int64_t>> whole_fragment_accumulator(const GemmNode& op) {
  const Buffer& c = op.c.buffer;
  if (c->scope != StorageScope::kFragment || !op.c.is_whole() || c->ndim() != 2)
    return std::nullopt;
  const int64_t* m = as_const_int(c->shape[0]);
  const int64_t* n = as_const_int(c->shape[1]);
  if (!m || !n) return std::nullopt;
  return std::make_pair(*m, *n);
}

Stmt register_blocked(const GemmNode& op, const transform::GemmOperands& g, SimtContext& ctx,
                      int64_t M, int64_t N, const MicroTile& tile) {
  std::string use = "the accumulator of T.gemm at " + source_line(op.span);
  Buffer acc = ctx.registers(op.c.buffer, micro_tile_layout(M, N, tile), use);
  DataType t = g.acc;
  const Var& tid = ctx.thread_index();
  Var ty = make_var("ty"), tx = make_var("tx");
  Var k = make_var("k", g.K.dtype());
  Buffer a = make_buffer(op.c.buffer->name + "_a", {make_int(tile.TM)}, t, StorageScope::kLocal);
  Buffer b = make_buffer(op.c.buffer->name + "_b", {make_int(tile.TN)}, t, StorageScope::kLocal);
  std::vector<Stmt> step;
  for (int64_t ri = 0; ri < tile.TM; ++ri) {
    Expr m = make_int(ri * tile.tm) + ty;
    step.push_back(store(a, {make_int(ri)}, cast(t, op.transpose_a ? g.a.at(k, m) : g.a.at(m, k))));
  }
  for (int64_t rj = 0; rj < tile.TN; ++rj) {
    Expr n = tx * make_int(tile.TN) + make_int(rj);
    step.push_back(store(b, {make_int(rj)}, cast(t, op.transpose_b ? g.b.at(n, k) : g.b.at(k, n))));
  }
  for (int64_t ri = 0; ri < tile.TM; ++ri) {
    for (int64_t rj = 0; rj < tile.TN; ++rj) {
      Expr r = make_int(ri * tile.TN + rj);
      Expr product = binary(BinaryOp::kMul, load(a, {make_int(ri)}), load(b, {make_int(rj)}));
      step.push_back(store(acc, {r}, binary(BinaryOp::kAdd, load(acc, {r}), product)));
    }
  }
  Stmt loop = for_loop(k, make_zero(g.K.dtype()), g.K, seq(step), ForKind::kSerial, 1, op.span);
  Stmt body = allocate(a, allocate(b, loop));
  if (op.clear_accum) {
    Var r = make_var("r");
    body =
        seq({for_loop(r, make_int(0), make_int(tile.TM * tile.TN), store(acc, {r}, make_zero(t))),
             body});
  }
  return let(ty, floordiv(tid, make_int(tile.tn)), let(tx, floormod(tid, make_int(tile.tn)), body));
}

// One dot product per accumulator element, k serial inside, in a T.Parallel nest over C
// that gpu.lower_simt splits by C's layout.
Stmt dot_product_nest(const GemmNode& op, const transform::GemmOperands& g) {
  Var m = make_var("m", g.M.dtype()), n = make_var("n", g.N.dtype()),
      k = make_var("k", g.K.dtype());
  Expr av = op.transpose_a ? g.a.at(k, m) : g.a.at(m, k);
  Expr bv = op.transpose_b ? g.b.at(n, k) : g.b.at(k, n);
  Expr product = binary(BinaryOp::kMul, cast(g.acc, av), cast(g.acc, bv));
  Stmt update = store(g.c.buffer, g.c.indices(m, n), binary(BinaryOp::kAdd, g.c.at(m, n), product));
  Stmt loops =
      for_loop(m, make_zero(g.M.dtype()), g.M,
               for_loop(n, make_zero(g.N.dtype()), g.N,
                        for_loop(k, make_zero(g.K.dtype()), g.K, update), ForKind::kParallel),
               ForKind::kParallel);
  return transform::with_clear_accum(op, g, loops);
}

std::optional<Stmt> lower_gemm_simt(const Stmt& stmt, const target::Target&) {
  const auto* op = stmt.as<GemmNode>();
  transform::GemmOperands g = transform::analyze_gemm(*op);
  SimtContext* ctx = current_simt_context();
  auto shape = whole_fragment_accumulator(*op);
  if (ctx && shape) {
    auto [M, N] = *shape;
    if (auto tile = choose_micro_tile(M, N, ctx->num_threads()))
      return register_blocked(*op, g, *ctx, M, N, *tile);
    // The dot products follow C's layout; keep it the cyclic one, partitioned over the
    // threads, so a use that needs C replicated is reported rather than computed by
    // every thread.
    ctx->registers(op->c.buffer, cyclic_layout({M, N}, ctx->num_threads()),
                   "the accumulator of T.gemm at " + source_line(op->span));
  }
  return dot_product_nest(*op, g);
}

}  // namespace

transform::TileOpImpl simt_gemm_impl(int priority) {
  return {"simt.gemm", transform::TileOpKind::kGemm, is_gpu_target, priority, lower_gemm_simt};
}

}  // namespace tilec::gpu
