#include "tilec/cpu/tile_ops.h"

#include "tilec/ir/stmt.h"
#include "tilec/transform/gemm_operands.h"
#include "tilec/transform/pass_context.h"

#include <algorithm>

namespace tilec::cpu {

using namespace ir;
using transform::GemmMatrix;

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
// With `fused` and a 32- or 64-bit accumulator, each step is fma(a, b, acc) (TILE_SEMANTICS.md
// allows contracting the gemm accumulation, as every GPU and vector CPU does): one instruction and
// one rounding instead of a multiply and an add, which halves the micro-kernel's arithmetic
// instructions. Without it, the multiply and the add round separately, in k order, so
// results are bit-identical to the interpreter's.
std::optional<Stmt> register_blocked_gemm(const GemmNode* op, const GemmMatrix& a,
                                          const GemmMatrix& b_in, const GemmMatrix& c,
                                          const Expr& M, const Expr& N, const Expr& K, bool fused) {
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
  GemmMatrix b = b_in;
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
    b = GemmMatrix{*panel, {make_zero(it), make_zero(it)}, 0, 1, K, N};
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
    return for_loop(g, make_zero(it), make_int(groups, it),
                    for_loop(i, make_zero(it), make_int(rows, it), body(g, i), ForKind::kUnrolled),
                    ForKind::kUnrolled);
  };
  Stmt load_tile = each([&](const Var& g, const Var& i) {
    return store(tile, {g, i}, c.at(row(i), col(g)));
  });
  Stmt update = each([&](const Var& g, const Var& i) {
    Expr av = op->transpose_a ? a.at(k, row(i)) : a.at(row(i), k);
    Expr x = cast(acc, av), y = cast(acc, b.at(k, col(g)));
    // 16-bit accumulators round every step, and over a long k loop one rounding per fused
    // step drifts from the interpreter's two by more than the float16 tolerance.
    if (fused && acc.is_float() && acc.bits >= 32)
      return store(tile, {g, i}, call("fma", {x, y, load(tile, {g, i})}));
    Expr product = binary(BinaryOp::kMul, x, y);
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
  Stmt blocks =
      for_loop(m0, make_zero(it), make_int(*m_extent / rows, it),
               for_loop(n0, make_zero(it), make_int(*n_extent / (groups * lanes), it), lanes_loop));
  if (!panel) return blocks;
  return allocate(*panel, seq({fill_panel, blocks}));
}

}  // namespace

std::optional<Stmt> lower_gemm_register_blocked(const Stmt& op, const target::Target&) {
  const auto* gemm = op.as<GemmNode>();
  transform::GemmOperands g = transform::analyze_gemm(*gemm);
  bool fused = transform::PassContext::current().get_bool(kGemmFmaConfigKey);
  std::optional<Stmt> blocked = register_blocked_gemm(gemm, g.a, g.b, g.c, g.M, g.N, g.K, fused);
  if (!blocked) return std::nullopt;  // the generic loop nest handles it
  return transform::with_clear_accum(*gemm, g, *std::move(blocked));
}

}  // namespace tilec::cpu
