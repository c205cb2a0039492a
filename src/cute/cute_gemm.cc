#include "tilec/cute/cute_gemm.h"

#include "tilec/cute/backend.h"
#include "tilec/gpu/lower_simt.h"
#include "tilec/gpu/simt_tile_ops.h"

#include <fmt/format.h>

#include <cstdlib>

namespace tilec::cute {

using namespace ir;

namespace {

constexpr int64_t kWarp = 32;

std::optional<std::vector<int64_t>> const_shape(const Buffer& b) {
  std::vector<int64_t> shape;
  for (const auto& d : b->shape) {
    const int64_t* c = as_const_int(d);
    if (!c) return std::nullopt;
    shape.push_back(*c);
  }
  return shape;
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

std::vector<Expr> plan_args(const CuteGemmPlan& p) {
  return {int_arg(p.atom), int_arg(p.wm), int_arg(p.wn), int_arg(p.m), int_arg(p.n)};
}

Expr element0(const Buffer& b) {
  std::vector<Expr> zeros(b->shape.size(), make_zero(DataType::Int32()));
  return load(b, zeros);
}

std::optional<Stmt> lower_gemm_cute(const Stmt& stmt, const target::Target&) {
  const auto* op = stmt.as<GemmNode>();
  const gpu::SimtBlock* block = gpu::current_simt_block();
  if (!block) return std::nullopt;  // outside the SIMT lowering
  std::optional<CuteGemmPlan> plan = plan_cute_gemm(*op, block->num_threads);
  if (!plan) return std::nullopt;
  // The accumulator must have been given this plan's partition (the layout provider
  // and this lowering decide alike; anything else is a bug to report, not to run).
  if (block->layouts) {
    auto it = block->layouts->find(op->c.buffer.get());
    if (it == block->layouts->end() || it->second.kind != gpu::FragmentLayoutKind::kPartitioned ||
        !it->second.partition || it->second.partition->name != plan->describe()) {
      throw IRError(fmt::format(
          "cute gemm: the accumulator '{}' of the T.gemm at line {} was not laid out as {}; "
          "the CuTe layout provider (cute.tiled_mma) is not registered with the gemm",
          op->c.buffer->name, op->span.line, plan->describe()));
    }
  }
  std::vector<Expr> args = {element0(op->a.buffer), element0(op->b.buffer), element0(op->c.buffer)};
  for (auto& a : plan_args(*plan)) args.push_back(std::move(a));
  args.push_back(int_arg(plan->k));
  args.push_back(int_arg(plan->transpose_a ? 1 : 0));
  args.push_back(int_arg(plan->transpose_b ? 1 : 0));
  args.push_back(int_arg(op->clear_accum ? 1 : 0));
  return evaluate(call_extern(DataType::Int32(), kCuteGemmCall, std::move(args), op->span),
                  op->span);
}

}  // namespace

const char* CuteGemmPlan::atom_name() const {
  switch (atom) {
    case kSm80F16:
      return "SM80_16x8x16_F32F16F16F32_TN";
    case kSm80BF16:
      return "SM80_16x8x16_F32BF16BF16F32_TN";
    case kFma:
      return "UniversalFMA<float, float, float, float>";
  }
  return "?";
}

std::string CuteGemmPlan::describe() const {
  return fmt::format("cute TiledMMA {} over a {}x{} grid of {}", atom_name(), wm, wn,
                     atom == kFma ? "threads" : "warps");
}

std::optional<CuteGemmPlan> plan_cute_gemm(const GemmNode& gemm, int64_t num_threads) {
  if (!gemm.a.is_whole() || !gemm.b.is_whole() || !gemm.c.is_whole()) return std::nullopt;
  const Buffer &a = gemm.a.buffer, &b = gemm.b.buffer, &c = gemm.c.buffer;
  if (a->scope != StorageScope::kShared || b->scope != StorageScope::kShared ||
      c->scope != StorageScope::kFragment || !c->dtype.is_float() || c->dtype.bits != 32 ||
      c->dtype.lanes != 1 || a->dtype != b->dtype) {
    return std::nullopt;
  }
  auto sa = const_shape(a), sb = const_shape(b), sc = const_shape(c);
  if (!sa || !sb || !sc || sa->size() != 2 || sb->size() != 2 || sc->size() != 2)
    return std::nullopt;
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
    p.atom = f16 ? CuteGemmPlan::kSm80F16 : CuteGemmPlan::kSm80BF16;
    if (num_threads % kWarp != 0 || p.k % 16 != 0) return std::nullopt;
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

std::vector<transform::TileOpImpl> cute_tile_op_impls() {
  return {{"cute.gemm_tiled_mma", transform::TileOpKind::kGemm, is_cute_target,
           transform::kBackendTileOpPriority, lower_gemm_cute}};
}

gpu::AccumulatorLayoutProvider cute_accumulator_layout_provider() {
  return gpu::AccumulatorLayoutProvider{
      .name = "cute.tiled_mma",
      .supports_target = is_cute_target,
      .layout = [](const GemmNode& gemm, int64_t num_threads,
                   const target::Target&) -> std::optional<gpu::PartitionedLayout> {
        std::optional<CuteGemmPlan> plan = plan_cute_gemm(gemm, num_threads);
        if (!plan) return std::nullopt;
        gpu::PartitionedLayout layout;
        layout.name = plan->describe();
        layout.registers = plan->registers(num_threads);
        CuteGemmPlan p = *plan;
        layout.coordinates = [p](const Expr& tid, const Expr& reg) {
          std::vector<Expr> coords;
          for (int64_t dim = 0; dim < 2; ++dim) {
            std::vector<Expr> args = plan_args(p);
            args.push_back(cast(DataType::Int32(), tid));
            args.push_back(cast(DataType::Int32(), reg));
            args.push_back(int_arg(dim));
            coords.push_back(call_extern(DataType::Int32(), kCuteCoordCall, std::move(args)));
          }
          return coords;
        };
        return layout;
      }};
}

}  // namespace tilec::cute
