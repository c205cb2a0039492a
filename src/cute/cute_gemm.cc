#include "tilec/cute/cute_gemm.h"

#include "tilec/cuda/shared_swizzle.h"
#include "tilec/cute/backend.h"
#include "tilec/cute/shared_tile.h"
#include "tilec/gpu/simt_context.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>

namespace tilec::cute {

using namespace ir;

namespace {

constexpr int64_t kWarp = 32;
constexpr int64_t kWarpgroup = 128;
constexpr int64_t kGmmaRows = 64;
// The N of CuTe's dense SM90 GMMA atoms with float32 accumulators (mma_sm90_gmma.hpp).
constexpr std::array<int64_t, 8> kGmmaAtomN = {256, 192, 128, 96, 64, 32, 16, 8};

// The warpgroup grid gm x gn == groups and the widest GMMA atom N for an m x n tile: the
// widest atom first (fewest instructions), then the most warpgroups along M.
struct GmmaGrid {
  int64_t wm = 0, wn = 0, atom_n = 0;
};
std::optional<GmmaGrid> gmma_grid(int64_t groups, int64_t m, int64_t n) {
  std::optional<GmmaGrid> best;
  for (int64_t wm = groups; wm >= 1; --wm) {
    if (groups % wm != 0 || m % (kGmmaRows * wm) != 0) continue;
    int64_t wn = groups / wm;
    if (n % wn != 0) continue;
    for (int64_t atom_n : kGmmaAtomN) {
      if ((n / wn) % atom_n != 0) continue;
      if (!best || atom_n > best->atom_n) best = GmmaGrid{wm, wn, atom_n};
      break;
    }
  }
  return best;
}

// The grid wm x wn == units of atoms (atom tile am x an) that tiles m x n exactly, as
// square in atoms per unit as it gets; nullopt when none does.
std::optional<std::pair<int64_t, int64_t>> atom_grid(int64_t units, int64_t m, int64_t n,
                                                     int64_t am, int64_t an) {
  std::optional<std::pair<int64_t, int64_t>> best;
  int64_t best_skew = 0;
  for (int64_t wm = 1; wm <= units; ++wm) {
    if (units % wm != 0) continue;
    int64_t wn = units / wm;
    if (m % (am * wm) != 0 || n % (an * wn) != 0) continue;
    int64_t skew = std::llabs(m / (am * wm) * am - n / (an * wn) * an);
    if (!best || skew < best_skew) {
      best = std::make_pair(wm, wn);
      best_skew = skew;
    }
  }
  return best;
}

Expr int_arg(int64_t v) {
  return make_int(v);
}

std::optional<Stmt> lower_gemm_cute(const Stmt& stmt, const target::Target& target) {
  const auto* op = stmt.as<GemmNode>();
  gpu::SimtContext* ctx = gpu::current_simt_context();
  if (!ctx) return std::nullopt;  // outside the SIMT lowering
  std::optional<CuteGemmPlan> plan =
      plan_cute_gemm(*op, ctx->num_threads(), target.get_string("arch"));
  // A tile another GMMA gemm of the kernel reads in another layout: SM80's atom, which
  // reads a tile in any layout, takes this one.
  if (plan && plan->gmma() &&
      !ctx->claim_shared_layouts({{op->a.buffer, plan->layout_a->describe()},
                                  {op->b.buffer, plan->layout_b->describe()}})) {
    plan = plan_cute_gemm(*op, ctx->num_threads(), "");
  }
  if (!plan) return std::nullopt;
  std::string use =
      fmt::format("the accumulator of the CuTe T.gemm at {}", gpu::source_line(op->span));
  Buffer acc =
      ctx->registers(op->c.buffer, cute_accumulator_layout(*plan, ctx->num_threads()), use);
  std::vector<Expr> args = {shared_tile(op->a)->first, shared_tile(op->b)->first,
                            load(acc, {make_zero(DataType::Int32())})};
  auto code = [](const std::optional<GmmaSmemLayout>& l) { return l ? int64_t(l->code()) : 0; };
  for (int64_t v :
       {int64_t(plan->atom), plan->wm, plan->wn, plan->m, plan->n, plan->k,
        int64_t(plan->transpose_a), int64_t(plan->transpose_b), int64_t(op->clear_accum),
        plan->atom_n, code(plan->layout_a), code(plan->layout_b)}) {
    args.push_back(int_arg(v));
  }
  return evaluate(call_extern(DataType::Int32(), kCuteGemmCall, std::move(args), op->span),
                  op->span);
}

}  // namespace

std::string CuteGemmPlan::atom_name() const {
  switch (atom) {
    case kSm80F16:
      return "SM80_16x8x16_F32F16F16F32_TN";
    case kSm80BF16:
      return "SM80_16x8x16_F32BF16BF16F32_TN";
    case kFma:
      return "UniversalFMA<float, float, float, float>";
    case kSm90F16:
    case kSm90BF16: {
      auto major = [](const std::optional<GmmaSmemLayout>& l) {
        return l && l->major == GmmaSmemLayout::kMN ? "GMMA::Major::MN" : "GMMA::Major::K";
      };
      return fmt::format("SM90_64x{}x16_F32{}_SS<{}, {}>", atom_n,
                         atom == kSm90F16 ? "F16F16" : "BF16BF16", major(layout_a),
                         major(layout_b));
    }
  }
  return "?";
}

std::string CuteGemmPlan::describe() const {
  return fmt::format("cute TiledMMA {} over a {}x{} grid of {}", atom_name(), wm, wn,
                     atom == kFma ? "threads"
                     : gmma()     ? "warpgroups"
                                  : "warps");
}

int64_t CuteGemmPlan::atom_rows() const {
  return gmma() ? kGmmaRows : atom == kFma ? 1 : 16;
}
int64_t CuteGemmPlan::atom_cols() const {
  return gmma() ? atom_n : atom == kFma ? 1 : 8;
}
int64_t CuteGemmPlan::atom_threads() const {
  return gmma() ? kWarpgroup : atom == kFma ? 1 : kWarp;
}

bool has_gmma(const std::string& arch) {
  return arch == "sm_90" || arch == "sm_90a";
}

std::optional<CuteGemmPlan> plan_cute_gemm(const GemmNode& gemm, int64_t num_threads,
                                           const std::string& arch) {
  std::optional<SharedTile> ta = shared_tile(gemm.a), tb = shared_tile(gemm.b);
  if (!ta || !tb || !gemm.c.is_whole()) return std::nullopt;
  const Buffer &a = gemm.a.buffer, &b = gemm.b.buffer, &c = gemm.c.buffer;
  if (a->scope != StorageScope::kShared || b->scope != StorageScope::kShared ||
      c->scope != StorageScope::kFragment || !c->dtype.is_float() || c->dtype.bits != 32 ||
      c->dtype.lanes != 1 || a->dtype != b->dtype) {
    return std::nullopt;
  }
  auto sa = std::optional(ta->shape), sb = std::optional(tb->shape), sc = constant_shape(c);
  if (!sc || sc->size() != 2) return std::nullopt;
  CuteGemmPlan p;
  p.transpose_a = gemm.transpose_a;
  p.transpose_b = gemm.transpose_b;
  p.m = (*sc)[0];
  p.n = (*sc)[1];
  p.k = p.transpose_a ? (*sa)[0] : (*sa)[1];
  int64_t a_m = p.transpose_a ? (*sa)[1] : (*sa)[0];
  int64_t b_k = p.transpose_b ? (*sb)[1] : (*sb)[0];
  int64_t b_n = p.transpose_b ? (*sb)[0] : (*sb)[1];
  if (a_m != p.m || b_n != p.n || b_k != p.k || p.m <= 0 || p.n <= 0 || p.k <= 0)
    return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> grid;
  const bool f16 = a->dtype.code == TypeCode::kFloat && a->dtype.bits == 16;
  if (a->dtype.lanes != 1) return std::nullopt;
  if (f16 || a->dtype.is_bfloat16()) {
    if (num_threads % kWarp != 0 || p.k % 16 != 0) return std::nullopt;
    if (has_gmma(arch) && num_threads % kWarpgroup == 0) {
      // wgmma reads A K-major unless transposed (stored K x M), B MN-major unless
      // transposed (stored N x K).
      using M = GmmaSmemLayout;
      auto la = choose_gmma_smem_layout(p.transpose_a ? M::kMN : M::kK, (*sa)[0], (*sa)[1], 2);
      auto lb = choose_gmma_smem_layout(p.transpose_b ? M::kK : M::kMN, (*sb)[0], (*sb)[1], 2);
      auto g = gmma_grid(num_threads / kWarpgroup, p.m, p.n);
      if (la && lb && g) {
        p.atom = f16 ? CuteGemmPlan::kSm90F16 : CuteGemmPlan::kSm90BF16;
        p.wm = g->wm;
        p.wn = g->wn;
        p.atom_n = g->atom_n;
        p.layout_a = la;
        p.layout_b = lb;
        return p;
      }
    }
    p.atom = f16 ? CuteGemmPlan::kSm80F16 : CuteGemmPlan::kSm80BF16;
    grid = atom_grid(num_threads / kWarp, p.m, p.n, 16, 8);
  } else if (a->dtype.code == TypeCode::kFloat && a->dtype.bits == 32) {
    p.atom = CuteGemmPlan::kFma;
    grid = atom_grid(num_threads, p.m, p.n, 1, 1);
  }
  if (!grid) return std::nullopt;
  p.wm = grid->first;
  p.wn = grid->second;
  return p;
}

gpu::FragmentLayout cute_accumulator_layout(const CuteGemmPlan& p, int64_t num_threads) {
  auto c = [](int64_t v) { return make_int(v); };
  const bool fma = p.atom == CuteGemmPlan::kFma;
  // One atom's C tile: am x an elements of athreads threads, av values each.
  const int64_t am = p.atom_rows(), an = p.atom_cols(), athreads = p.atom_threads();
  const int64_t av = am * an / athreads;
  const int64_t tile_m = am * p.wm, tile_n = an * p.wn;  // the TiledMMA's tile
  const int64_t rest_m = p.m / tile_m;                   // MMA_M: atom instances along M per unit
  return gpu::make_layout(
      p.describe(), {p.m, p.n}, num_threads, p.registers(num_threads), [&](gpu::FragmentLayout& l) {
        const Var& i = l.index_vars[0];
        const Var& j = l.index_vars[1];
        // Forward: (i, j) -> the atom instance (mi, ni), the unit (wm, wn) within the
        // TiledMMA's tile, and the atom's own (lane, value).
        Expr mi = floordiv(i, c(tile_m)), ni = floordiv(j, c(tile_n));
        Expr wm = floordiv(floormod(i, c(tile_m)), c(am));
        Expr wn = floordiv(floormod(j, c(tile_n)), c(an));
        Expr unit = wm + wn * c(p.wm);  // col-major over the atom grid
        Expr lane = make_zero(DataType::Int32()), value = make_zero(DataType::Int32());
        if (p.gmma()) {
          // CLayout_64xN: thread 32 * (m / 16) + 4 * (m % 8) + (n % 8) / 2,
          // value n % 2 + 2 * ((m % 16) / 8) + 4 * (n / 8).
          Expr ii = floormod(i, c(am)), jj = floormod(j, c(an));
          lane = floordiv(ii, c(16)) * c(32) + floormod(ii, c(8)) * c(4) +
                 floordiv(floormod(jj, c(8)), c(2));
          value = floormod(jj, c(2)) + floordiv(floormod(ii, c(16)), c(8)) * c(2) +
                  floordiv(jj, c(8)) * c(4);
        } else if (!fma) {
          // SM80_16x8_Row: lane = 4 * (m % 8) + n / 2, value = n % 2 + 2 * (m / 8).
          Expr ii = floormod(i, c(16)), jj = floormod(j, c(8));
          lane = floormod(ii, c(8)) * c(4) + floordiv(jj, c(2));
          value = floormod(jj, c(2)) + floordiv(ii, c(8)) * c(2);
        }
        l.thread_of = transform::simplify(unit * c(athreads) + lane);
        // partition_C's ((V), MMA_M, MMA_N) registers, col-major.
        l.register_of = transform::simplify(value + (mi + ni * c(rest_m)) * c(av));
        const Var& t = l.thread_var;
        const Var& r = l.register_var;
        Expr u = floordiv(t, c(athreads)), ln = floormod(t, c(athreads));
        Expr v = floormod(r, c(av)), rest = floordiv(r, c(av));
        Expr row = floormod(rest, c(rest_m)) * c(tile_m) + floormod(u, c(p.wm)) * c(am);
        Expr col = floordiv(rest, c(rest_m)) * c(tile_n) + floordiv(u, c(p.wm)) * c(an);
        if (p.gmma()) {
          row = row + floordiv(ln, c(32)) * c(16) + floordiv(floormod(ln, c(32)), c(4)) +
                floormod(floordiv(v, c(2)), c(2)) * c(8);
          col = col + floormod(ln, c(4)) * c(2) + floormod(v, c(2)) + floordiv(v, c(4)) * c(8);
        } else if (!fma) {
          row = row + floordiv(ln, c(4)) + floordiv(v, c(2)) * c(8);
          col = col + floormod(ln, c(4)) * c(2) + floormod(v, c(2));
        }
        l.element_of = {transform::simplify(row), transform::simplify(col)};
      });
}

namespace {

// The stored shape of the gemm call's tile argument (0: A, 1: B) from its plan arguments.
std::optional<cuda::SharedTileLayout> gemm_tile_layout(const CallNode& call, size_t tile_arg,
                                                       int64_t code) {
  auto arg = [&](size_t i) {
    const int64_t* v = i < call.args.size() ? as_const_int(call.args[i]) : nullptr;
    return v ? *v : int64_t(-1);
  };
  const int64_t m = arg(6), n = arg(7), k = arg(8);
  const bool ta = arg(9) == 1, tb = arg(10) == 1;
  const auto* tile = call.args.at(tile_arg).as<LoadNode>();
  int64_t rows = tile_arg == 0 ? (ta ? k : m) : (tb ? n : k);
  int64_t cols = tile_arg == 0 ? (ta ? m : k) : (tb ? k : n);
  return gmma_shared_tile_layout(code, rows, cols, tile->buffer->dtype.bytes());
}

}  // namespace

void register_cute_gemm_layouts() {
  cuda::register_shared_layout_call(
      kCuteGemmCall, cuda::SharedLayoutCall{{{0, kCuteGemmLayoutArgA}, {1, kCuteGemmLayoutArgB}},
                                            gemm_tile_layout});
}

std::vector<transform::TileOpImpl> cute_tile_op_impls() {
  return {{"cute.gemm_tiled_mma", transform::TileOpKind::kGemm, is_cute_target, kCuteTileOpPriority,
           lower_gemm_cute}};
}

}  // namespace tilec::cute
