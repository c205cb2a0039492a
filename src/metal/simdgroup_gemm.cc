#include "tilec/metal/simdgroup_gemm.h"

#include "tilec/gpu/simt_context.h"
#include "tilec/transform/gemm_operands.h"

#include <fmt/format.h>

#include <cmath>

namespace tilec::metal {

using namespace ir;

namespace {

constexpr int64_t kMatrix = 8;  // simdgroup_matrix<T, 8, 8>
constexpr int64_t kSimdWidth = 32;

bool metal_target(const target::Target& target) {
  return target.kind() == "metal";
}

// A threadgroup operand simdgroup_load can read: a 2-D tile, or one stage of a staged tile
// (leading index dims, the matrix in the last two), of constant extents.
bool simdgroup_operand(const transform::GemmMatrix& m) {
  const Buffer& b = m.buffer;
  int nd = b->ndim();
  if (b->scope != StorageScope::kShared || nd < 2 || m.row_dim != nd - 2 || m.col_dim != nd - 1)
    return false;
  for (const auto& extent : b->shape)
    if (!as_const_int(extent)) return false;
  return true;
}

}  // namespace

std::optional<SimdgroupTiling> choose_simdgroup_tiling(int64_t M, int64_t N, int64_t num_threads,
                                                       GemmWarpPolicy policy) {
  if (num_threads % kSimdWidth != 0 || M <= 0 || N <= 0) return std::nullopt;
  const int64_t groups = num_threads / kSimdWidth;
  std::optional<SimdgroupTiling> best;
  double best_score = 0;
  for (int64_t gm = 1; gm <= groups; ++gm) {
    if (groups % gm != 0) continue;
    int64_t gn = groups / gm;
    if (M % (gm * kMatrix) != 0 || N % (gn * kMatrix) != 0) continue;
    double wm = double(M / gm), wn = double(N / gn);
    // FullRow: most simdgroups along M; FullCol: along N; Square: the squarest tile.
    double score = policy == GemmWarpPolicy::kFullRow   ? -double(gm)
                   : policy == GemmWarpPolicy::kFullCol ? double(gm)
                                                        : std::abs(std::log(wm / wn));
    if (!best || score < best_score) {
      best = SimdgroupTiling{gm, gn, M / gm, N / gn};
      best_score = score;
    }
  }
  return best;
}

gpu::FragmentLayout simdgroup_accumulator_layout(int64_t M, int64_t N, const SimdgroupTiling& w) {
  int64_t nt = w.tiles_n();
  return gpu::make_layout(
      fmt::format("simdgroup_matrix 8x8 (simdgroups {}x{}, {}x{} matrices each)", w.groups_m,
                  w.groups_n, w.tiles_m(), nt),
      {M, N}, w.groups_m * w.groups_n * kSimdWidth, w.tiles_m() * nt * 2,
      [&](gpu::FragmentLayout& l) {
        auto c = [](int64_t v) { return make_int(v); };
        const Var& i = l.index_vars[0];
        const Var& j = l.index_vars[1];
        Expr group = floordiv(i, c(w.WM)) * c(w.groups_n) + floordiv(j, c(w.WN));
        Expr bi = floormod(i, c(8)), bj = floormod(j, c(8));
        // Apple's thread_elements(): lane 16 (row / 4) + 8 (col / 4) + 2 (row % 4) + (col / 2) % 2.
        Expr lane = floordiv(bi, c(4)) * c(16) + floordiv(bj, c(4)) * c(8) +
                    floormod(bi, c(4)) * c(2) + floormod(floordiv(bj, c(2)), c(2));
        l.thread_of = group * c(kSimdWidth) + lane;
        Expr matrix =
            floordiv(floormod(i, c(w.WM)), c(8)) * c(nt) + floordiv(floormod(j, c(w.WN)), c(8));
        l.register_of = matrix * c(2) + floormod(j, c(2));
        const Var& t = l.thread_var;
        const Var& r = l.register_var;
        Expr g = floordiv(t, c(kSimdWidth)), ln = floormod(t, c(kSimdWidth));
        Expr m = floordiv(r, c(2)), e = floormod(r, c(2));
        Expr row = floordiv(ln, c(16)) * c(4) + floormod(floordiv(ln, c(2)), c(4));
        Expr col = floormod(floordiv(ln, c(8)), c(2)) * c(4) + floormod(ln, c(2)) * c(2) + e;
        l.element_of = {floordiv(g, c(w.groups_n)) * c(w.WM) + floordiv(m, c(nt)) * c(8) + row,
                        floormod(g, c(w.groups_n)) * c(w.WN) + floormod(m, c(nt)) * c(8) + col};
      });
}

namespace {

std::optional<Stmt> lower_gemm_simdgroup(const Stmt& stmt, const target::Target&) {
  const auto* op = stmt.as<GemmNode>();
  gpu::SimtContext* ctx = gpu::current_simt_context();
  if (!ctx) return std::nullopt;
  transform::GemmOperands g = transform::analyze_gemm(*op);
  const Buffer& c = op->c.buffer;
  DataType ta = op->a.buffer->dtype, tb = op->b.buffer->dtype;
  bool supported = ta == tb && (ta == DataType::Float16() || ta == DataType::Float32());
  if (!supported || c->dtype != DataType::Float32()) return std::nullopt;
  if (c->scope != StorageScope::kFragment || !op->c.is_whole() || c->ndim() != 2)
    return std::nullopt;
  const int64_t* M = as_const_int(c->shape[0]);
  const int64_t* N = as_const_int(c->shape[1]);
  const int64_t* K = as_const_int(g.K);
  if (!M || !N || !K || *K % kMatrix != 0) return std::nullopt;
  if (!simdgroup_operand(g.a) || !simdgroup_operand(g.b)) return std::nullopt;
  auto tiling = choose_simdgroup_tiling(*M, *N, ctx->num_threads(), ctx->gemm_policies().of(*op));
  if (!tiling) return std::nullopt;

  std::string use =
      fmt::format("the accumulator of the simdgroup T.gemm at {}", gpu::source_line(op->span));
  Buffer acc = ctx->registers(c, simdgroup_accumulator_layout(*M, *N, *tiling), use);
  const Var& tid = ctx->thread_index();
  Var group_m = make_var("group_m"), group_n = make_var("group_n");
  auto c32 = [](int64_t v) { return make_int(v); };
  Expr m0 = Expr(group_m) * c32(tiling->WM);
  Expr n0 = Expr(group_n) * c32(tiling->WN);
  Expr zero = make_zero(g.K.dtype());
  // The simdgroup's first A and B elements; the helper steps through k and the matrices.
  Expr a = op->transpose_a ? g.a.at(zero, m0) : g.a.at(m0, zero);
  Expr b = op->transpose_b ? g.b.at(n0, zero) : g.b.at(zero, n0);
  auto row_length = [](const transform::GemmMatrix& m) {
    return make_int(*as_const_int(m.buffer->shape.back()));
  };
  Stmt call =
      evaluate(call_extern(DataType::Int32(), kSimdgroupGemm,
                           {load(acc, {c32(0)}), a, row_length(g.a), b, row_length(g.b),
                            c32(*K / kMatrix), c32(tiling->tiles_m()), c32(tiling->tiles_n()),
                            c32(op->transpose_a ? 1 : 0), c32(op->transpose_b ? 1 : 0)}));
  Stmt body = call;
  if (op->clear_accum) {
    Var r = make_var("r");
    int64_t registers = tiling->tiles_m() * tiling->tiles_n() * 2;
    body = seq({for_loop(r, c32(0), c32(registers), store(acc, {r}, make_zero(c->dtype))), call});
  }
  Expr group = floordiv(tid, c32(kSimdWidth));
  return let(group_m, floordiv(group, c32(tiling->groups_n)),
             let(group_n, floormod(group, c32(tiling->groups_n)), body));
}

}  // namespace

transform::TileOpImpl simdgroup_gemm_impl() {
  return {"metal.gemm_simdgroup", transform::TileOpKind::kGemm, metal_target,
          transform::kBackendTileOpPriority, lower_gemm_simdgroup};
}

}  // namespace tilec::metal
