// cpu.reduce_vectorized: T.reduce_* over the innermost dimension with several vector
// accumulators (include/tilec/cpu/tile_ops.h).
#include "tilec/cpu/cpu_resources.h"
#include "tilec/cpu/gemm_blocking.h"
#include "tilec/cpu/tile_ops.h"
#include "tilec/transform/reduce_ops.h"

namespace tilec::cpu {

using namespace ir;

namespace {

// Independent accumulators a lane: enough to hide the add's latency (4 cycles, one add a
// cycle per port) on the x86-64 and AArch64 cores we run on.
constexpr int64_t kAccumulators = 4;

}  // namespace

std::optional<Stmt> lower_reduce_vectorized(const Stmt& stmt, const target::Target& target) {
  const auto* op = stmt.as<ReduceNode>();
  const Buffer& src = op->src;
  const Buffer& dst = op->dst;
  int nd = src->ndim();
  // Over an outer dimension the generic nest's innermost loop already runs along a row
  // (independent elements); a malformed reduce gets the generic lowering's error.
  if (nd < 1 || op->dim != nd - 1) return std::nullopt;
  bool keeps_dim = dst->ndim() == nd;
  if (!keeps_dim && dst->ndim() != nd - 1) return std::nullopt;
  DataType t = dst->dtype;
  // 16-bit floats round every step: another order could drift past their tolerance.
  if (!(t.is_float() && t.bits >= 32) && !t.is_int()) return std::nullopt;
  const int64_t* n = as_const_int(src->shape[nd - 1]);
  if (n == nullptr) return std::nullopt;
  int64_t lanes = lanes_for(vector_unit_for(target), t);
  int64_t accs = kAccumulators;
  while (accs > 1 && *n < lanes * accs) accs /= 2;
  if (lanes < 2 || *n < lanes * accs) return std::nullopt;
  const int64_t width = lanes * accs;  // a power of two: lanes and accs are

  DataType it = src->shape[nd - 1].dtype();
  auto c = [&](int64_t v) { return make_int(v, it); };
  std::vector<Var> outer;
  std::vector<Expr> prefix, dst_idx;
  for (int d = 0; d + 1 < nd; ++d) {
    outer.push_back(make_var("r" + std::to_string(d), src->shape[d].dtype()));
    prefix.push_back(outer.back());
    dst_idx.push_back(outer.back());
  }
  if (keeps_dim) dst_idx.push_back(make_zero(it));
  bool absolute = op->reduce_kind == ReduceKind::kAbsSum || op->reduce_kind == ReduceKind::kAbsMax;
  auto element = [&](const Expr& col) {
    std::vector<Expr> idx = prefix;
    idx.push_back(col);
    Expr x = cast(t, load(src, idx));
    return absolute ? call("abs", {x}) : x;
  };
  auto combine = [&](const Expr& acc, const Expr& x) {
    return transform::reduce_combine(op->reduce_kind, acc, x);
  };

  // part[l] accumulates the row's elements l, l + width, l + 2 width, ...: a vectorized
  // loop of `accs` vectors the C compiler and the LLVM emitter keep in registers. Sums
  // then add in another order than the interpreter's, which docs/semantics.md allows
  // ("reductions ... may sum in a different order", float tolerances); max and min are
  // exact in any order.
  Buffer part = make_buffer("part", {c(width)}, t, StorageScope::kLocal);
  Var l = make_var("l", it), k = make_var("k", it), r = make_var("r", it);
  std::vector<Stmt> body;
  body.push_back(for_loop(l, c(0), c(width),
                          store(part, {l}, transform::reduce_identity(op->reduce_kind, t)),
                          ForKind::kVectorized));
  Stmt step = store(part, {l}, combine(load(part, {l}), element(k * c(width) + l)));
  body.push_back(
      for_loop(k, c(0), c(*n / width), for_loop(l, c(0), c(width), step, ForKind::kVectorized)));
  // Fold the partials pairwise down to part[0].
  for (int64_t w = width / 2; w >= 1; w /= 2) {
    Var h = make_var("h", it);
    body.push_back(for_loop(h, c(0), c(w),
                            store(part, {h}, combine(load(part, {h}), load(part, {h + c(w)}))),
                            ForKind::kVectorized));
  }
  if (*n % width != 0) {
    body.push_back(for_loop(r, c(*n / width * width), c(*n),
                            store(part, {c(0)}, combine(load(part, {c(0)}), element(r)))));
  }
  Expr result = load(part, {c(0)});
  body.push_back(store(dst, dst_idx, op->clear ? result : combine(load(dst, dst_idx), result)));
  Stmt row = allocate(part, seq(body));
  for (size_t d = outer.size(); d-- > 0;)
    row = for_loop(outer[d], make_zero(src->shape[d].dtype()), src->shape[d], row);
  return row;
}

}  // namespace tilec::cpu
