#include "tilec/cuda/mma_gemm.h"

#include "tilec/gpu/simt_context.h"
#include "tilec/ir/gemm_policy.h"
#include "tilec/transform/gemm_operands.h"

#include <fmt/format.h>

#include <cmath>
#include <regex>

namespace tilec::cuda {

using namespace ir;

namespace {

constexpr int64_t kMPerWarp = 16, kNPerWarp = 8;  // one m16n8 mma tile

// TileLang's ComputeWarpPartition for mma.sync (GemmWarpPolicy, not the Hopper wgmma one):
// the warps_m x warps_n split of `warps` warps over an M x N accumulator.
std::pair<int64_t, int64_t> tilelang_partition(int64_t M, int64_t N, int64_t warps,
                                               ir::GemmWarpPolicy policy) {
  int64_t m = 1, n = 1;
  switch (policy) {
    case ir::GemmWarpPolicy::kFullRow:
      // All warps along M; where M cannot take them, as many as it can and the rest on N.
      m = warps;
      if (M % (m * kMPerWarp) != 0) {
        m = std::max<int64_t>(1, M / kMPerWarp);
        n = std::max<int64_t>(1, warps / m);
      }
      break;
    case ir::GemmWarpPolicy::kFullCol:
      n = warps;
      if (N % (n * kNPerWarp) != 0) {
        n = std::max<int64_t>(1, N / kNPerWarp);
        m = std::max<int64_t>(1, warps / n);
      }
      break;
    case ir::GemmWarpPolicy::kSquare: {
      // The split whose per-warp tile (in m16n8 tiles) is closest to the accumulator's
      // M / N ratio, the first (fewest warps along M) on a tie. tilec asks only among the
      // splits that tile the accumulator exactly (TileLang assumes it does).
      const double ideal = double(M) / double(N);
      double best = 0;
      bool found = false;
      for (int64_t wm = 1; wm <= warps && wm <= M / kMPerWarp; ++wm) {
        int64_t wn = warps / wm;
        if (wm * wn != warps || wn > N / kNPerWarp) continue;
        if (M % (wm * kMPerWarp) != 0 || N % (wn * kNPerWarp) != 0) continue;
        double m_per_warp = double(M) / double(wm * kMPerWarp);
        double n_per_warp = double(N) / double(wn * kNPerWarp);
        double balance = std::abs(m_per_warp / n_per_warp - ideal);
        if (!found || balance < best) {
          found = true;
          best = balance;
          m = wm;
          n = wn;
        }
      }
      break;
    }
  }
  return {m, n};
}

}  // namespace

std::optional<WarpTiling> choose_warp_tiling(int64_t M, int64_t N, int64_t num_threads,
                                             ir::GemmWarpPolicy policy) {
  if (num_threads % 32 != 0 || M <= 0 || N <= 0) return std::nullopt;
  const int64_t warps = num_threads / 32;
  auto [wm, wn] = tilelang_partition(M, N, warps, policy);
  if (wm * wn != warps || M % (wm * kMPerWarp) != 0 || N % (wn * kNPerWarp) != 0)
    return std::nullopt;
  return WarpTiling{wm, wn, M / wm, N / wn};
}

gpu::FragmentLayout mma_accumulator_layout(int64_t M, int64_t N, const WarpTiling& w) {
  int64_t nt = w.tiles_n();
  return gpu::make_layout(
      fmt::format("mma m16n8 C/D (warps {}x{}, {}x{} tiles each)", w.warps_m, w.warps_n,
                  w.tiles_m(), nt),
      {M, N}, w.warps_m * w.warps_n * 32, w.tiles_m() * nt * 4, [&](gpu::FragmentLayout& l) {
        auto c = [](int64_t v) { return make_int(v); };
        const Var& i = l.index_vars[0];
        const Var& j = l.index_vars[1];
        Expr warp = floordiv(i, c(w.WM)) * c(w.warps_n) + floordiv(j, c(w.WN));
        Expr lane = floormod(i, c(8)) * c(4) + floordiv(floormod(j, c(8)), c(2));
        l.thread_of = warp * c(32) + lane;
        Expr tile =
            floordiv(floormod(i, c(w.WM)), c(16)) * c(nt) + floordiv(floormod(j, c(w.WN)), c(8));
        l.register_of = tile * c(4) + floordiv(floormod(i, c(16)), c(8)) * c(2) + floormod(j, c(2));
        const Var& t = l.thread_var;
        const Var& r = l.register_var;
        Expr wv = floordiv(t, c(32)), ln = floormod(t, c(32)), tl = floordiv(r, c(4)),
             k = floormod(r, c(4));
        l.element_of = {floordiv(wv, c(w.warps_n)) * c(w.WM) + floordiv(tl, c(nt)) * c(16) +
                            floordiv(k, c(2)) * c(8) + floordiv(ln, c(4)),
                        floormod(wv, c(w.warps_n)) * c(w.WN) + floormod(tl, c(nt)) * c(8) +
                            floormod(ln, c(4)) * c(2) + floormod(k, c(2))};
      });
}

int cuda_sm_version(const target::Target& target) {
  std::string arch = target.get_string("arch", "");
  static const std::regex form(R"(sm_(\d+)[af]?)");
  std::smatch m;
  if (!std::regex_match(arch, m, form)) return 80;
  return std::stoi(m[1]);
}

namespace {

bool tensor_core_target(const target::Target& target) {
  return target.kind() == "cuda" && cuda_sm_version(target) >= 80;
}

// A shared operand whose rows start 16-byte aligned (ldmatrix reads 16 bytes per row): a
// 2-D tile, or one stage of a tile the cp.async pipeline staged (leading index dims at any
// start, the matrix in the last two), whose inner extent and column start are multiples
// of 8 halves.
bool ldmatrix_operand(const transform::GemmMatrix& m) {
  const Buffer& b = m.buffer;
  int nd = b->ndim();
  if (b->scope != StorageScope::kShared || nd < 2 || m.row_dim != nd - 2 || m.col_dim != nd - 1)
    return false;
  const int64_t* inner = as_const_int(b->shape[size_t(nd - 1)]);
  if (!inner || *inner % 8 != 0) return false;
  for (int d = nd - 2; d < nd; ++d) {
    const int64_t* s = as_const_int(m.starts[size_t(d)]);
    if (!s || (d == nd - 1 && *s % 8 != 0)) return false;
  }
  for (int d = 0; d < nd - 2; ++d)
    if (!as_const_int(b->shape[size_t(d)])) return false;
  return true;
}

Stmt call_stmt(const std::string& name, std::vector<Expr> args) {
  return evaluate(call_extern(DataType::Int32(), name, std::move(args)));
}

std::optional<Stmt> lower_gemm_mma(const Stmt& stmt, const target::Target& target) {
  const auto* op = stmt.as<GemmNode>();
  gpu::SimtContext* ctx = gpu::current_simt_context();
  if (!ctx) return std::nullopt;
  transform::GemmOperands g = transform::analyze_gemm(*op);
  const Buffer& c = op->c.buffer;
  DataType ta = op->a.buffer->dtype, tb = op->b.buffer->dtype;
  bool f16 = ta == DataType::Float16() && tb == DataType::Float16();
  bool bf16 = ta.is_bfloat16() && tb.is_bfloat16();
  if ((!f16 && !bf16) || c->dtype != DataType::Float32()) return std::nullopt;
  if (c->scope != StorageScope::kFragment || !op->c.is_whole() || c->ndim() != 2)
    return std::nullopt;
  const int64_t* M = as_const_int(c->shape[0]);
  const int64_t* N = as_const_int(c->shape[1]);
  const int64_t* K = as_const_int(g.K);
  if (!M || !N || !K || *K % 16 != 0) return std::nullopt;
  if (!ldmatrix_operand(g.a) || !ldmatrix_operand(g.b)) return std::nullopt;
  auto tiling = choose_warp_tiling(*M, *N, ctx->num_threads(), ctx->gemm_policies().of(*op));
  if (!tiling) return std::nullopt;

  std::string use =
      fmt::format("the accumulator of the tensor-core T.gemm at {}", gpu::source_line(op->span));
  Buffer acc = ctx->registers(c, mma_accumulator_layout(*M, *N, *tiling), use);
  int64_t mt = tiling->tiles_m(), nt = tiling->tiles_n();
  Buffer a_frag =
      make_buffer(c->name + "_mma_a", {make_int(mt * 4)}, DataType::UInt(32), StorageScope::kLocal);
  Buffer b_frag =
      make_buffer(c->name + "_mma_b", {make_int(nt * 2)}, DataType::UInt(32), StorageScope::kLocal);
  const Var& tid = ctx->thread_index();
  Var warp_m = make_var("warp_m"), warp_n = make_var("warp_n"), lane = make_var("lane");
  Var kk = make_var("kk", g.K.dtype());
  auto c32 = [](int64_t v) { return make_int(v); };
  Expr k0 = cast(DataType::Int32(), kk) * c32(16);
  // The row a lane addresses within its matrix, and which matrix (of 4) it addresses.
  Expr row8 = floormod(lane, c32(8));
  Expr second = floormod(floordiv(lane, c32(8)), c32(2));  // matrices 1 and 3
  Expr upper = floordiv(lane, c32(16));                    // matrices 2 and 3

  std::vector<Stmt> step;
  for (int64_t mi = 0; mi < mt; ++mi) {
    Expr m0 = Expr(warp_m) * c32(tiling->WM) + c32(mi * 16);
    // Matrices: (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15).
    Expr address = op->transpose_a ? g.a.at(k0 + upper * c32(8) + row8, m0 + second * c32(8))
                                   : g.a.at(m0 + second * c32(8) + row8, k0 + upper * c32(8));
    step.push_back(call_stmt(op->transpose_a ? "tilec_ldmatrix_x4_trans" : "tilec_ldmatrix_x4",
                             {load(a_frag, {c32(mi * 4)}), address}));
  }
  for (int64_t ni = 0; ni < nt; ++ni) {
    Expr n0 = Expr(warp_n) * c32(tiling->WN) + c32(ni * 8);
    // Matrices: k 0-7, k 8-15 (lanes 16-31 repeat lanes 0-15's addresses).
    Expr address = op->transpose_b ? g.b.at(n0 + row8, k0 + second * c32(8))
                                   : g.b.at(k0 + second * c32(8) + row8, n0);
    step.push_back(call_stmt(op->transpose_b ? "tilec_ldmatrix_x2" : "tilec_ldmatrix_x2_trans",
                             {load(b_frag, {c32(ni * 2)}), address}));
  }
  std::string mma = f16 ? "tilec_mma_m16n8k16_f16" : "tilec_mma_m16n8k16_bf16";
  for (int64_t mi = 0; mi < mt; ++mi) {
    for (int64_t ni = 0; ni < nt; ++ni) {
      step.push_back(call_stmt(mma, {load(acc, {c32((mi * nt + ni) * 4)}),
                                     load(a_frag, {c32(mi * 4)}), load(b_frag, {c32(ni * 2)})}));
    }
  }
  Stmt loop = for_loop(kk, make_zero(g.K.dtype()), make_int(*K / 16, g.K.dtype()), seq(step),
                       ForKind::kSerial, 1, op->span);
  Stmt body = allocate(a_frag, allocate(b_frag, loop));
  if (op->clear_accum) {
    Var r = make_var("r");
    body = seq({for_loop(r, c32(0), c32(mt * nt * 4), store(acc, {r}, make_zero(c->dtype))), body});
  }
  Expr warp = floordiv(tid, c32(32));
  return let(
      warp_m, floordiv(warp, c32(tiling->warps_n)),
      let(warp_n, floormod(warp, c32(tiling->warps_n)), let(lane, floormod(tid, c32(32)), body)));
}

}  // namespace

transform::TileOpImpl mma_gemm_impl() {
  return {"cuda.gemm_mma", transform::TileOpKind::kGemm, tensor_core_target,
          transform::kBackendTileOpPriority, lower_gemm_mma};
}

}  // namespace tilec::cuda
