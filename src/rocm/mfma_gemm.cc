#include "tilec/rocm/mfma_gemm.h"

#include "tilec/gpu/simt_context.h"
#include "tilec/rocm/hip_target.h"
#include "tilec/transform/gemm_operands.h"

#include <fmt/format.h>

#include <cmath>

namespace tilec::rocm {

using namespace ir;

std::optional<WaveTiling> choose_wave_tiling(int64_t M, int64_t N, int64_t num_threads,
                                             GemmWarpPolicy policy) {
  if (num_threads % kMfmaWavefront != 0 || M <= 0 || N <= 0) return std::nullopt;
  const int64_t waves = num_threads / kMfmaWavefront;
  std::optional<WaveTiling> best;
  double best_score = 0;
  for (int64_t wm = 1; wm <= waves; ++wm) {
    if (waves % wm != 0) continue;
    int64_t wn = waves / wm;
    if (M % (wm * 16) != 0 || N % (wn * 16) != 0) continue;
    double score = 0;
    switch (policy) {
      case GemmWarpPolicy::kFullRow:
        score = -double(wm);
        break;
      case GemmWarpPolicy::kFullCol:
        score = -double(wn);
        break;
      case GemmWarpPolicy::kSquare:
        score =
            std::abs((double(M) / double(wm)) / (double(N) / double(wn)) - double(M) / double(N));
        break;
    }
    if (!best || score < best_score) {
      best = WaveTiling{wm, wn, M / wm, N / wn};
      best_score = score;
    }
  }
  return best;
}

gpu::FragmentLayout mfma_accumulator_layout(int64_t M, int64_t N, const WaveTiling& w) {
  int64_t tn = w.tiles_n();
  return gpu::make_layout(
      fmt::format("mfma 16x16 C/D (wavefronts {}x{}, {}x{} tiles each)", w.waves_m, w.waves_n,
                  w.tiles_m(), tn),
      {M, N}, w.waves_m * w.waves_n * kMfmaWavefront, w.tiles_m() * tn * 4,
      [&](gpu::FragmentLayout& l) {
        auto c = [](int64_t v) { return make_int(v); };
        const Var& i = l.index_vars[0];
        const Var& j = l.index_vars[1];
        Expr wave = floordiv(i, c(w.WM)) * c(w.waves_n) + floordiv(j, c(w.WN));
        Expr lane = floormod(j, c(16)) + floordiv(floormod(i, c(16)), c(4)) * c(16);
        l.thread_of = wave * c(kMfmaWavefront) + lane;
        Expr tile =
            floordiv(floormod(i, c(w.WM)), c(16)) * c(tn) + floordiv(floormod(j, c(w.WN)), c(16));
        l.register_of = tile * c(4) + floormod(i, c(4));
        const Var& t = l.thread_var;
        const Var& r = l.register_var;
        Expr wv = floordiv(t, c(kMfmaWavefront)), ln = floormod(t, c(kMfmaWavefront)),
             tl = floordiv(r, c(4)), q = floormod(r, c(4));
        l.element_of = {floordiv(wv, c(w.waves_n)) * c(w.WM) + floordiv(tl, c(tn)) * c(16) +
                            floordiv(ln, c(16)) * c(4) + q,
                        floormod(wv, c(w.waves_n)) * c(w.WN) + floormod(tl, c(tn)) * c(16) +
                            floormod(ln, c(16))};
      });
}

namespace {

bool mfma_target(const target::Target& target) {
  return target.kind() == "hip" && arch_has_mfma(hip_arch(target)) &&
         hip_wavefront_size(target) == kMfmaWavefront;
}

// Operands are read element by element, so any memory the lanes can address works; a
// fragment lives in other threads' registers.
bool addressable(const transform::GemmMatrix& m) {
  StorageScope s = m.buffer->scope;
  return s == StorageScope::kShared || s == StorageScope::kGlobal;
}

Stmt call_stmt(const std::string& name, std::vector<Expr> args) {
  return evaluate(call_extern(DataType::Int32(), name, std::move(args)));
}

std::optional<Stmt> lower_gemm_mfma(const Stmt& stmt, const target::Target& target) {
  const auto* op = stmt.as<GemmNode>();
  gpu::SimtContext* ctx = gpu::current_simt_context();
  if (!ctx) return std::nullopt;
  transform::GemmOperands g = transform::analyze_gemm(*op);
  const Buffer& c = op->c.buffer;
  DataType ta = op->a.buffer->dtype, tb = op->b.buffer->dtype;
  bool f16 = ta == DataType::Float16() && tb == DataType::Float16();
  bool bf16 = ta.is_bfloat16() && tb.is_bfloat16() && arch_has_mfma_bf16_1k(hip_arch(target));
  if ((!f16 && !bf16) || c->dtype != DataType::Float32()) return std::nullopt;
  if (c->scope != StorageScope::kFragment || !op->c.is_whole() || c->ndim() != 2)
    return std::nullopt;
  const int64_t* M = as_const_int(c->shape[0]);
  const int64_t* N = as_const_int(c->shape[1]);
  const int64_t* K = as_const_int(g.K);
  if (!M || !N || !K || *K % 16 != 0) return std::nullopt;
  if (!addressable(g.a) || !addressable(g.b)) return std::nullopt;
  auto tiling = choose_wave_tiling(*M, *N, ctx->num_threads(), ctx->gemm_policies().of(*op));
  if (!tiling) return std::nullopt;

  std::string use =
      fmt::format("the accumulator of the MFMA T.gemm at {}", gpu::source_line(op->span));
  Buffer acc = ctx->registers(c, mfma_accumulator_layout(*M, *N, *tiling), use);
  int64_t mt = tiling->tiles_m(), nt = tiling->tiles_n();
  DataType elem = ta;
  Buffer a_frag = make_buffer(c->name + "_mfma_a", {make_int(mt * 4)}, elem, StorageScope::kLocal);
  Buffer b_frag = make_buffer(c->name + "_mfma_b", {make_int(nt * 4)}, elem, StorageScope::kLocal);
  const Var& tid = ctx->thread_index();
  Var wave_m = make_var("wave_m"), wave_n = make_var("wave_n"), lane = make_var("lane");
  Var kk = make_var("kk", g.K.dtype());
  auto c32 = [](int64_t v) { return make_int(v); };
  Expr k0 = cast(DataType::Int32(), kk) * c32(16);
  Expr lane16 = floormod(lane, c32(16));
  Expr quad = floordiv(lane, c32(16)) * c32(4);  // the lane's first k (A) / k (B) row

  std::vector<Stmt> step;
  for (int64_t mi = 0; mi < mt; ++mi) {
    Expr row = Expr(wave_m) * c32(tiling->WM) + c32(mi * 16) + lane16;
    for (int64_t q = 0; q < 4; ++q) {
      Expr k = k0 + quad + c32(q);
      step.push_back(
          store(a_frag, {c32(mi * 4 + q)}, op->transpose_a ? g.a.at(k, row) : g.a.at(row, k)));
    }
  }
  for (int64_t ni = 0; ni < nt; ++ni) {
    Expr col = Expr(wave_n) * c32(tiling->WN) + c32(ni * 16) + lane16;
    for (int64_t q = 0; q < 4; ++q) {
      Expr k = k0 + quad + c32(q);
      step.push_back(
          store(b_frag, {c32(ni * 4 + q)}, op->transpose_b ? g.b.at(col, k) : g.b.at(k, col)));
    }
  }
  std::string mfma = f16 ? "tilec_mfma_f32_16x16x16_f16" : "tilec_mfma_f32_16x16x16_bf16";
  for (int64_t mi = 0; mi < mt; ++mi) {
    for (int64_t ni = 0; ni < nt; ++ni) {
      step.push_back(call_stmt(mfma, {load(acc, {c32((mi * nt + ni) * 4)}),
                                      load(a_frag, {c32(mi * 4)}), load(b_frag, {c32(ni * 4)})}));
    }
  }
  Stmt loop = for_loop(kk, make_zero(g.K.dtype()), make_int(*K / 16, g.K.dtype()), seq(step),
                       ForKind::kSerial, 1, op->span);
  Stmt body = allocate(a_frag, allocate(b_frag, loop));
  if (op->clear_accum) {
    Var r = make_var("r");
    body = seq({for_loop(r, c32(0), c32(mt * nt * 4), store(acc, {r}, make_zero(c->dtype))), body});
  }
  Expr wave = floordiv(tid, c32(kMfmaWavefront));
  return let(wave_m, floordiv(wave, c32(tiling->waves_n)),
             let(wave_n, floormod(wave, c32(tiling->waves_n)),
                 let(lane, floormod(tid, c32(kMfmaWavefront)), body)));
}

}  // namespace

transform::TileOpImpl mfma_gemm_impl() {
  return {"rocm.gemm_mfma", transform::TileOpKind::kGemm, mfma_target,
          transform::kBackendTileOpPriority, lower_gemm_mfma};
}

}  // namespace tilec::rocm
