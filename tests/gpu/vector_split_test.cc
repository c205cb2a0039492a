// Vectorized SIMT splits: the affine facts they rest on, which copies and T.Parallel
// nests become vector moves (aligned, contiguous, inside the masks) and which stay scalar
// (misaligned offsets proven impossible, odd extents, fragments, gathers), the run-time
// alignment check for symbolic strides, and the scalar tail at edges.
#include "build_paths.h"
#include "simt_support.h"

#include "tilec/gpu/lane_affine.h"
#include "tilec/gpu/vectorize_lanes.h"
#include "tilec/transform/flatten_buffers.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace tilec {
namespace {

using namespace ir;

// The module after the SIMT passes up to and including gpu.vectorize_lanes.
IRModule lower_vectorized(const std::string& source, const std::string& target = "cl_test") {
  IRModule mod = testing::lower_for_simt(source, target);
  mod = transform::flatten_buffers(mod);
  mod = transform::simplify(mod);
  return transform::simplify(gpu::vectorize_lanes(mod));
}

// Vector moves by lane count.
std::map<int, int> vector_moves(const IRModule& mod) {
  std::map<int, int> moves;
  post_order_visit(mod.functions().front()->body, [&](const Stmt* s, const Expr*) {
    auto* st = s ? s->as<StoreNode>() : nullptr;
    auto* v = st ? st->value.as<LoadNode>() : nullptr;
    if (v && !v->dtype.is_scalar()) ++moves[v->dtype.lanes];
  });
  return moves;
}

std::string copy_kernel(const std::string& dtype, const std::string& shape, const std::string& tile,
                        const std::string& from) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor({1}, "{0}"), B: T.Tensor({1}, "{0}")):
    with T.Kernel(4, 4, threads=64) as (bx, by):
        S = T.alloc_shared({2}, "{0}")
        T.copy({3}, S)
        T.copy(S, B[by * 16, bx * 32])
)PY",
                     dtype, shape, tile, from);
}

TEST(LaneAffine, CoefficientsAndDivisibility) {
  Var j = make_var("j"), i = make_var("i"), n = make_var("n");
  auto c = gpu::affine_coefficient((i * 64 + j) * 2 + 3, j.get());
  ASSERT_TRUE(c);
  EXPECT_TRUE(is_const_int(*c, 2));
  EXPECT_TRUE(is_const_int(*gpu::affine_coefficient(i * n + 5, j.get()), 0));
  EXPECT_FALSE(gpu::affine_coefficient(j * j, j.get()));
  EXPECT_FALSE(gpu::affine_coefficient(floordiv(j, 2), j.get()));
  EXPECT_TRUE(gpu::divisible_by(i * 64 + j * 8 + 16, 8));
  EXPECT_TRUE(gpu::divisible_by(make_int(2) * (j * 4), 8));
  EXPECT_FALSE(gpu::divisible_by(i * 64 + j + 16, 8));
  EXPECT_FALSE(gpu::divisible_by(i * n, 4));  // symbolic stride: not proven
}

TEST(VectorSplit, AlignedCopiesBecomeWideMovesCoalescedOverThreads) {
  // float32: 4 lanes (16 bytes); float16: 8 lanes; int8: 16 lanes would leave half of the
  // 64 threads idle on a 16 x 32 tile, so 8.
  std::map<std::string, int> lanes = {
      {"float32", 4}, {"float16", 8}, {"bfloat16", 8}, {"int8", 8}, {"float64", 2}};
  for (const auto& [dtype, n] : lanes) {
    SCOPED_TRACE(dtype);
    IRModule mod =
        lower_vectorized(copy_kernel(dtype, "(64, 128)", "(16, 32)", "A[by * 16, bx * 32]"));
    auto moves = vector_moves(mod);
    // Both copies (global -> shared, shared -> global) are single moves of n lanes.
    EXPECT_EQ(moves[n], 2) << print(mod);
    EXPECT_EQ(moves.size(), 1u) << print(mod);
    std::string text = print(mod);
    // Consecutive threads take consecutive vectors: vector f = r * 64 + tid.
    EXPECT_NE(text.find("r * 64 + tid"), std::string::npos) << text;
  }
}

TEST(VectorSplit, WholeTilesInBoundsNeedNoScalarTail) {
  IRModule mod = lower_vectorized(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((16, 32), "float16"), B: T.Tensor((16, 32), "float16")):
    with T.Kernel(1, threads=32) as bx:
        S = T.alloc_shared((16, 32), "float16")
        T.copy(A, S)
        T.copy(S, B)
)PY");
  std::string text = print(mod);
  EXPECT_EQ(vector_moves(mod)[8], 2) << text;
  EXPECT_EQ(text.find("else"), std::string::npos) << text;
  EXPECT_EQ(text.find("if "), std::string::npos) << "64 vectors on 32 threads: no guard\n" << text;
}

TEST(VectorSplit, AThreadReadingAnotherThreadsElementsWaitsAtABarrier) {
  // The copy moves 4 elements per thread; the fragment's T.Parallel reads one per
  // thread per step, elsewhere in the tile: the planner separates them.
  IRModule mod = lower_vectorized(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((32, 32), "float32"), C: T.Tensor((32, 32), "float32")):
    with T.Kernel(1, threads=128) as bx:
        S = T.alloc_shared((32, 32), "float32")
        F = T.alloc_fragment((32, 32), "float32")
        T.copy(A, S)
        for i, j in T.Parallel(32, 32):
            F[i, j] = S[i, j] * 2.0
        T.copy(F, C)
)PY");
  EXPECT_EQ(vector_moves(mod)[4], 1) << print(mod);
  EXPECT_EQ(testing::count_barriers(mod.functions().front()->body), 1) << print(mod);
}

TEST(VectorSplit, MisalignedOffsetsStayScalarOrNarrower) {
  // Column offset 1: no vector width can be aligned for every block.
  IRModule odd =
      lower_vectorized(copy_kernel("float32", "(64, 128)", "(16, 32)", "A[by * 16, bx * 32 + 1]"));
  std::string text = print(odd);
  // The shared side is aligned, the global side is not: checked at run time.
  EXPECT_NE(text.find("% 4 == 0"), std::string::npos) << text;
  // Offset 2 in float32: 2 lanes are proven aligned, 4 are not.
  IRModule two =
      lower_vectorized(copy_kernel("float32", "(64, 128)", "(16, 32)", "A[by * 16, bx * 32 + 2]"));
  EXPECT_EQ(vector_moves(two)[2], 1) << print(two);
  // An innermost extent of 31 has no vector width at all.
  IRModule ragged =
      lower_vectorized(copy_kernel("float32", "(64, 128)", "(16, 31)", "A[by * 16, bx * 32]"));
  EXPECT_TRUE(vector_moves(ragged).empty()) << print(ragged);
}

TEST(VectorSplit, NoMoreLanesThanElementsPerThread) {
  // 256 elements on 128 threads: 2 lanes, every thread busy.
  std::ifstream file(std::string(TILEC_SOURCE_DIR) + "/examples/vector_add.py");
  std::stringstream text;
  text << file.rdbuf();
  IRModule mod = lower_vectorized(text.str());
  EXPECT_EQ(vector_moves(mod)[2], 3) << print(mod);
}

TEST(VectorSplit, EdgeTilesKeepAScalarTail) {
  // 72 columns: the last block's tile runs past the edge, its vectors are in or out.
  IRModule mod =
      lower_vectorized(copy_kernel("float32", "(50, 72)", "(16, 32)", "A[by * 16, bx * 32]"));
  std::string text = print(mod);
  EXPECT_EQ(vector_moves(mod)[4], 2) << text;
  EXPECT_NE(text.find("else"), std::string::npos) << "scalar tail for partial vectors\n" << text;
  EXPECT_NE(text.find("(i10 + 3) < 72"), std::string::npos) << "the last lane is checked\n" << text;
  // 70 columns: rows start 8-byte aligned only, so 2 lanes (proven) instead of 4.
  IRModule narrow =
      lower_vectorized(copy_kernel("float32", "(50, 70)", "(16, 32)", "A[by * 16, bx * 32]"));
  EXPECT_EQ(vector_moves(narrow)[2], 2) << print(narrow);
  EXPECT_EQ(print(narrow).find("% 2 == 0"), std::string::npos) << print(narrow);
}

TEST(VectorSplit, SymbolicStridesAreCheckedAtRunTime) {
  IRModule mod = lower_vectorized(R"PY(
import tilelang.language as T

N = T.symbolic("N")

@T.prim_func
def k(A: T.Tensor((64, N), "float32"), B: T.Tensor((64, N), "float32")):
    with T.Kernel(4, 4, threads=64) as (bx, by):
        S = T.alloc_shared((16, 32), "float32")
        T.copy(A[by * 16, bx * 32], S)
        T.copy(S, B[by * 16, bx * 32])
)PY");
  std::string text = print(mod);
  EXPECT_EQ(vector_moves(mod)[4], 2) << text;
  EXPECT_NE(text.find("% 4 == 0"), std::string::npos) << text;
}

TEST(VectorSplit, ElementwiseNestsStageThroughRegisters) {
  IRModule mod = lower_vectorized(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64,), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i, j in T.Parallel(64, 64):
            C[i, j] = T.cast(A[i, j], "float32") * 2.0 + B[i]
)PY");
  std::string text = print(mod);
  // float32 output: 4 lanes; A (float16) in and C out are vector moves, B[i] is scalar.
  EXPECT_EQ(vector_moves(mod)[4], 2) << text;
  EXPECT_NE(text.find("A_v"), std::string::npos) << text;
  EXPECT_NE(text.find("C_v"), std::string::npos) << text;
  EXPECT_EQ(text.find("B_v"), std::string::npos) << text;
}

TEST(VectorSplit, FragmentsGathersAndDisabledTargetsStayScalar) {
  // Cyclic fragments are laid out element by element over threads.
  IRModule frag = lower_vectorized(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((64, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        F = T.alloc_fragment((64, 64), "float32")
        T.copy(A, F)
        T.copy(F, C)
)PY");
  EXPECT_TRUE(vector_moves(frag).empty()) << print(frag);
  // A transposed read is not contiguous in the innermost loop.
  IRModule gather = lower_vectorized(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((64, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i, j in T.Parallel(64, 64):
            C[i, j] = A[j, i]
)PY");
  EXPECT_TRUE(vector_moves(gather).empty()) << print(gather);
  // vector_bytes=0 turns vectorized splits off.
  IRModule off =
      lower_vectorized(copy_kernel("float32", "(64, 128)", "(16, 32)", "A[by * 16, bx * 32]"),
                       "cl_test -vector_bytes=0");
  EXPECT_TRUE(vector_moves(off).empty()) << print(off);
  // vector_bytes=8 halves the float32 width.
  IRModule eight =
      lower_vectorized(copy_kernel("float32", "(64, 128)", "(16, 32)", "A[by * 16, bx * 32]"),
                       "cl_test -vector_bytes=8");
  EXPECT_EQ(vector_moves(eight)[2], 2) << print(eight);
}

// Vector moves whose destination is `buffer`.
int vector_stores_to(const IRModule& mod, const std::string& buffer) {
  int n = 0;
  post_order_visit(mod.functions().front()->body, [&](const Stmt* s, const Expr*) {
    auto* st = s ? s->as<StoreNode>() : nullptr;
    auto* v = st ? st->value.as<LoadNode>() : nullptr;
    if (v && !v->dtype.is_scalar() && st->buffer->name == buffer) ++n;
  });
  return n;
}

TEST(VectorSplit, MicroTileFragmentsMoveVectorsOfTheirRuns) {
  // The accumulator's micro-tile (8 x 4 over 128 threads) gives each thread 4 consecutive
  // columns per row: the copies out of it and its elementwise epilogue (a global bias
  // read) move 4-lane vectors, register by register, with the scalar tail at C's edges
  // (100 x 90: the last tiles are partial, 90 leaves a run straddling the edge).
  IRModule mod = lower_vectorized(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((100, 32), "float32"), B: T.Tensor((32, 90), "float32"),
       Bias: T.Tensor((90,), "float32"), C: T.Tensor((100, 90), "float32")):
    with T.Kernel(2, 2, threads=128) as (bx, by):
        A_s = T.alloc_shared((64, 32), "float32")
        B_s = T.alloc_shared((32, 64), "float32")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.copy(A[by * 64, 0], A_s)
        T.copy(B[0, bx * 64], B_s)
        T.gemm(A_s, B_s, C_l, clear_accum=True)
        for i, j in T.Parallel(64, 64):
            C_l[i, j] = C_l[i, j] + Bias[bx * 64 + j]
        T.copy(C_l, C[by * 64, bx * 64])
)PY");
  std::string text = print(mod);
  EXPECT_EQ(vector_stores_to(mod, "C"), 1) << text;
  EXPECT_EQ(vector_stores_to(mod, "Bias_v"), 1) << text;  // the bias, staged for the lanes
  // The registers of a run: rq .. rq + 3, one vector step per run.
  EXPECT_NE(text.find("rq = q * 4"), std::string::npos) << text;
  EXPECT_NE(text.find("else"), std::string::npos) << "the scalar tail\n" << text;
  // vector_bytes=0: no vectors.
  IRModule off = lower_vectorized(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((64, 32), "float32"), B: T.Tensor((32, 64), "float32"),
       C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_s = T.alloc_shared((64, 32), "float32")
        B_s = T.alloc_shared((32, 64), "float32")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.copy(A, A_s)
        T.copy(B, B_s)
        T.gemm(A_s, B_s, C_l, clear_accum=True)
        T.copy(C_l, C)
)PY",
                                  "cl_test -vector_bytes=0");
  EXPECT_TRUE(vector_moves(off).empty()) << print(off);
}

}  // namespace
}  // namespace tilec
