#include "tilec/cute/cute_copy.h"

#include "tilec/cuda/cp_async.h"
#include "tilec/cuda/shared_swizzle.h"
#include "tilec/cute/backend.h"
#include "tilec/cute/cute_gemm.h"
#include "tilec/cute/gmma_smem_layout.h"
#include "tilec/cute/shared_tile.h"
#include "tilec/gpu/simt_context.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

namespace tilec::cute {

using namespace ir;

namespace {

constexpr const char* kImplName = "cute.copy_tiled";

// The global side of the copy: the rows x cols region starting at `starts` whose last two
// dims are the tile's (every other dim a unit one), row-major with `row_stride`.
struct GlobalRegion {
  std::vector<Expr> starts;
  Expr row_stride, col_start, in_bounds;
};

std::optional<GlobalRegion> global_region(const TileRegion& r, int64_t rows, int64_t cols) {
  const Buffer& b = r.buffer;
  const int nd = b->ndim();
  if (b->scope != StorageScope::kGlobal || nd < 2) return std::nullopt;
  GlobalRegion g;
  std::vector<std::optional<Expr>> extents;
  if (r.is_whole()) {
    for (const auto& s : b->shape) {
      g.starts.push_back(make_zero(s.dtype()));
      extents.push_back(s);
    }
  } else {
    if (int(r.dims.size()) != nd) return std::nullopt;
    const bool point = r.is_point();
    for (int d = 0; d < nd; ++d) {
      const RegionDim& dim = r.dims[size_t(d)];
      g.starts.push_back(dim.start);
      if (point) {
        // An element subscript: the region takes the tile's extents on its last two dims.
        extents.push_back(d == nd - 2   ? make_int(rows)
                          : d == nd - 1 ? make_int(cols)
                                        : make_int(1));
      } else {
        extents.push_back(dim.stop ? std::optional(transform::simplify(*dim.stop - dim.start))
                                   : std::optional(make_int(1)));
      }
    }
  }
  Expr in_bounds = make_bool(true);
  for (int d = 0; d < nd; ++d) {
    const int64_t want = d == nd - 2 ? rows : d == nd - 1 ? cols : 1;
    const int64_t* have = as_const_int(*extents[size_t(d)]);
    if (!have || *have != want) return std::nullopt;
    const Expr& start = g.starts[size_t(d)];
    const Expr& extent = b->shape[size_t(d)];
    Expr last = start + make_int(want, start.dtype());
    in_bounds = logical_and(in_bounds, logical_and(start >= make_zero(start.dtype()),
                                                   last <= cast(start.dtype(), extent)));
  }
  g.in_bounds = transform::simplify(in_bounds);
  g.row_stride = b->shape[size_t(nd - 1)];
  g.col_start = g.starts[size_t(nd - 1)];
  return g;
}

int64_t largest_divisor_at_most(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

Expr multiple_of(const Expr& e, int64_t v) {
  return eq(floormod(e, make_int(v, e.dtype())), make_zero(e.dtype()));
}

Expr aligned(const Expr& first, int64_t bytes) {
  return call_extern(DataType::Bool(), kCuteAlignedCall, {first, make_int(bytes)});
}

// The implementations after this one that lower `stmt` (the generic copy), for edge tiles.
std::optional<Stmt> lower_without_cute(const Stmt& stmt, const target::Target& target) {
  for (const auto& impl : transform::tile_op_impls_for(transform::TileOpKind::kCopy, target)) {
    if (impl->name == kImplName) continue;
    if (std::optional<Stmt> s = impl->lower(stmt, target)) return s;
  }
  return std::nullopt;
}

std::optional<Stmt> lower_copy_cute(const Stmt& stmt, const target::Target& target) {
  const auto* op = stmt.as<CopyNode>();
  gpu::SimtContext* ctx = gpu::current_simt_context();
  if (!ctx) return std::nullopt;  // outside the SIMT lowering
  std::optional<PlannedCuteCopy> planned = plan_cute_copy(*op, ctx->num_threads());
  if (!planned) return std::nullopt;
  const CuteCopyPlan& p = planned->plan;
  std::vector<Expr> args = {planned->src_first, planned->src_stride, planned->dst_first,
                            planned->dst_stride};
  // The layout codes start plain; cuda.swizzle_shared sets the shared side's to its tile's
  // layout when a GMMA gemm needs one.
  for (int64_t v : {p.rows, p.cols, p.vector, p.thread_rows, p.thread_cols, int64_t(!p.to_shared),
                    int64_t(p.to_shared), int64_t(0), int64_t(0), int64_t(0)}) {
    args.push_back(make_int(v));
  }
  Span span = op->span;
  Stmt sync = evaluate(barrier(StorageScope::kShared, span), span);
  Stmt call = evaluate(call_extern(DataType::Int32(), kCuteCopyCall, std::move(args), span), span);
  Stmt copy = seq({sync, call, sync}, span);
  if (is_const_int(planned->condition, 1)) return copy;
  std::optional<Stmt> edge = lower_without_cute(stmt, target);
  if (!edge) return std::nullopt;
  return if_then_else(planned->condition, copy, *edge, span);
}

}  // namespace

std::string CuteCopyPlan::atom_name(bool async) const {
  const int64_t bytes = atom_bytes();
  const char* bits = bytes == 16  ? "uint128_t"
                     : bytes == 8 ? "uint64_t"
                     : bytes == 4 ? "uint32_t"
                     : bytes == 2 ? "uint16_t"
                                  : "uint8_t";
  if (async && to_shared && bytes >= 4) {
    return fmt::format(
        "{}<{}>", bytes == 16 ? "SM80_CP_ASYNC_CACHEGLOBAL" : "SM80_CP_ASYNC_CACHEALWAYS", bits);
  }
  return fmt::format("UniversalCopy<{}>", bits);
}

std::string CuteCopyPlan::describe() const {
  return fmt::format("cute TiledCopy {}, {}x{} threads x 1x{} values over a {}x{} tile",
                     atom_name(false), thread_rows, thread_cols, vector, rows, cols);
}

std::optional<PlannedCuteCopy> plan_cute_copy(const CopyNode& copy, int64_t num_threads) {
  const Buffer &src = copy.src.buffer, &dst = copy.dst.buffer;
  if (src->dtype != dst->dtype || src->dtype.lanes != 1 || src->dtype.bits % 8 != 0 ||
      num_threads < 1) {
    return std::nullopt;
  }
  const bool to_shared = src->scope == StorageScope::kGlobal && dst->scope == StorageScope::kShared;
  const bool from_shared =
      src->scope == StorageScope::kShared && dst->scope == StorageScope::kGlobal;
  if (!to_shared && !from_shared) return std::nullopt;
  std::optional<SharedTile> tile = shared_tile(to_shared ? copy.dst : copy.src);
  if (!tile) return std::nullopt;
  CuteCopyPlan p;
  p.to_shared = to_shared;
  p.rows = tile->shape[0];
  p.cols = tile->shape[1];
  // One-row or one-column tiles map onto other dims of the global region (semantics.md's
  // unit-dimension rule): the generic copy handles them.
  if (p.rows < 2 || p.cols < 2) return std::nullopt;
  std::optional<GlobalRegion> g = global_region(to_shared ? copy.src : copy.dst, p.rows, p.cols);
  if (!g) return std::nullopt;
  const Buffer& global = to_shared ? src : dst;
  Expr global_first = load(global, g->starts);
  p.element_bytes = src->dtype.bits / 8;
  Expr condition = g->in_bounds;
  for (int64_t bytes : {16, 8, 4, 2, 1}) {
    if (bytes < p.element_bytes || bytes % p.element_bytes != 0) continue;
    const int64_t v = bytes / p.element_bytes;
    if (p.cols % v != 0) continue;
    Expr fits = transform::simplify(
        logical_and(multiple_of(g->row_stride, v), multiple_of(g->col_start, v)));
    if (is_const_int(fits, 0)) continue;
    if (v > 1) {
      fits =
          logical_and(fits, logical_and(aligned(global_first, bytes), aligned(tile->first, bytes)));
    }
    p.vector = v;
    condition = transform::simplify(logical_and(condition, fits));
    break;
  }
  p.thread_cols = largest_divisor_at_most(p.cols / p.vector, num_threads);
  p.thread_rows = largest_divisor_at_most(p.rows, num_threads / p.thread_cols);
  PlannedCuteCopy out{p, {}, {}, {}, {}, condition};
  Expr tile_stride = make_int(p.cols);
  out.src_first = to_shared ? global_first : tile->first;
  out.dst_first = to_shared ? tile->first : global_first;
  out.src_stride = to_shared ? g->row_stride : tile_stride;
  out.dst_stride = to_shared ? tile_stride : g->row_stride;
  return out;
}

transform::TileOpImpl cute_copy_impl() {
  return {kImplName, transform::TileOpKind::kCopy, is_cute_target, kCuteTileOpPriority,
          lower_copy_cute};
}

namespace {

std::optional<cuda::SharedTileLayout> copy_tile_layout(const CallNode& call, size_t tile_arg,
                                                       int64_t code) {
  const int64_t* rows = as_const_int(call.args.at(4));
  const int64_t* cols = as_const_int(call.args.at(5));
  const auto* tile = call.args.at(tile_arg).as<LoadNode>();
  if (!rows || !cols) return std::nullopt;
  return gmma_shared_tile_layout(code, *rows, *cols, tile->buffer->dtype.bytes());
}

}  // namespace

void register_cute_copy_calls() {
  cuda::register_async_tile_copy(kCuteCopyCall);
  cuda::register_shared_layout_call(
      kCuteCopyCall,
      cuda::SharedLayoutCall{{{0, kCuteCopyLayoutArgSrc}, {2, kCuteCopyLayoutArgDst}},
                             copy_tile_layout});
  // The alignment check reads a tile's first address, the same in every layout.
  cuda::register_shared_layout_call(kCuteAlignedCall, cuda::SharedLayoutCall{{}, {}});
}

}  // namespace tilec::cute
