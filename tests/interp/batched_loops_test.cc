// The interpreter runs innermost T.Parallel loops batched (src/interp/interp_batch.h) and
// every other loop element by element. Each kernel here is run both ways, written once
// with T.Parallel and once with T.serial, and the outputs must be bit-identical; errors
// must carry the same text.
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace tilec::ir {
namespace {

PrimFunc lower(std::string source, const std::string& loop) {
  for (size_t at; (at = source.find("LOOP")) != std::string::npos;) source.replace(at, 4, loop);
  IRModule module = parse_kernel_source(source);
  EXPECT_EQ(module.size(), 1u);
  return module.functions()[0];
}

// Runs the kernel in both forms on the same random inputs; returns the two error texts
// ("" when it ran) after checking that every output is bit-identical.
std::pair<std::string, std::string> run_both(const std::string& source,
                                             const std::map<std::string, int64_t>& shapes) {
  std::string errors[2];
  RandomArgs args[2];
  const char* loops[2] = {"T.Parallel", "T.serial"};
  for (int form = 0; form < 2; ++form) {
    PrimFunc func = lower(source, loops[form]);
    args[form] = make_random_args(func, shapes, 11);
    try {
      interpret(func, args[form].args);
    } catch (const IRError& e) {
      errors[form] = e.what();
    }
  }
  if (errors[0].empty() && errors[1].empty()) {
    for (size_t i = 0; i < args[0].tensors.size(); ++i) {
      const HostTensor &batched = args[0].tensors[i], &scalar = args[1].tensors[i];
      EXPECT_EQ(std::memcmp(batched.view().data, scalar.view().data, batched.view().nbytes()), 0)
          << "tensor " << i << " differs between the batched and the scalar loop";
    }
  }
  return {errors[0], errors[1]};
}

TEST(BatchedLoops, GuardsLetsSelectsAndShortCircuitsMatchTheScalarLoop) {
  // Lanes past N skip the if (and the loads it guards); `and` guards a load that would be
  // out of bounds; T.if_then_else reads A[r, j + 1] only where it exists; float16,
  // bfloat16 and float32 arithmetic round per operation; integer // and % follow Python.
  const std::string source = R"(
import tilelang.language as T

M = T.symbolic("M")
N = T.symbolic("N")

@T.prim_func
def mixed(A: T.Tensor((M, N), "float16"), B: T.Tensor((N,), "bfloat16"),
          I: T.Tensor((M, N), "int32"), C: T.Tensor((M, N), "float32"),
          D: T.Tensor((M, N), "float16"), E: T.Tensor((M, N), "int32")):
    with T.Kernel(T.ceildiv(M, 4), threads=128) as bx:
        for i in T.serial(4):
            for j in LOOP(N + 3):
                r = bx * 4 + i
                if r < M and j < N:
                    t = A[r, j] * T.float16(0.5) - T.cast(B[j], "float16")
                    C[r, j] = T.exp2(T.cast(t, "float32")) + T.if_then_else(
                        j + 1 < N, T.cast(A[r, j + 1], "float32"), T.float32(1.0))
                    if I[r, j] % 3 == 0:
                        D[r, j] = T.tanh(t)
                    else:
                        D[r, j] = -t * T.cast(B[j], "float16")
                    E[r, j] = (I[r, j] * 7 + j) // 5 - I[r, j] % 4
                elif r < M and j < N + 1 and A[r, j - 1] > T.float16(0):
                    E[r, j - 1] = E[r, j - 1] + 1
)";
  for (int64_t n : {1, 7, 300, 513}) {
    auto [batched, scalar] = run_both(source, {{"M", 9}, {"N", n}});
    EXPECT_EQ(batched, "") << "N=" << n;
    EXPECT_EQ(scalar, "") << "N=" << n;
  }
}

TEST(BatchedLoops, UniformConditionsAndBatchBoundaries) {
  const std::string source = R"(
import tilelang.language as T

N = T.symbolic("N")

@T.prim_func
def uniform(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), s: T.int32):
    with T.Kernel(1, threads=128) as bx:
        for j in LOOP(N):
            if s > 2:
                B[j] = T.max(A[j], T.float32(0)) * T.cast(s, "float32")
            else:
                B[j] = T.if_then_else(s == 0, A[j], T.sqrt(T.abs(A[j])))
)";
  for (int64_t s : {0, 1, 5}) {
    for (int64_t n : {0, 1, 255, 256, 257, 1000}) {
      auto [batched, scalar] = run_both(source, {{"N", n}, {"s", s}});
      EXPECT_EQ(batched, "") << "N=" << n << " s=" << s;
      EXPECT_EQ(scalar, "") << "N=" << n << " s=" << s;
    }
  }
}

TEST(BatchedLoops, SequentialLoopsInsideTheBatchedBody) {
  // A serial reduction per element (TileLang's mhc_post shape), one whose bounds depend on
  // the batched variable (that loop stays element by element), and loads whose indices
  // are the same for every lane.
  const std::string source = R"(
import tilelang.language as T

N = T.symbolic("N")

@T.prim_func
def nested(A: T.Tensor((4, 4), "float32"), B: T.Tensor((4, N), "bfloat16"),
           X: T.Tensor((4, N), "float32"), Y: T.Tensor((N,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.serial(4):
            for j in LOOP(N):
                X[i, j] = A[i, i] * T.cast(B[i, j], "float32")
                for k in T.serial(4):
                    X[i, j] += A[k, i] * T.cast(B[k, j], "float32")
                    for u in T.unroll(2):
                        X[i, j] = X[i, j] * T.float32(0.5) + A[u, k]
        for j in LOOP(N):
            Y[j] = T.float32(0)
            for k in T.serial(j % 5):
                Y[j] += X[k % 4, j]
)";
  for (int64_t n : {3, 300}) {
    auto [batched, scalar] = run_both(source, {{"N", n}});
    EXPECT_EQ(batched, "") << "N=" << n;
    EXPECT_EQ(scalar, "") << "N=" << n;
  }
}

TEST(BatchedLoops, AtomicsFromManyLanesIntoOneElementEachCountOnce) {
  // Lanes of one batch update the same elements; float16 sums round after every update,
  // so the order of the updates shows in the result.
  const std::string source = R"(
import tilelang.language as T

N = T.symbolic("N")

@T.prim_func
def atomics(A: T.Tensor((N,), "float16"), I: T.Tensor((N,), "int32"),
            S: T.Tensor((8,), "float16"), X: T.Tensor((8,), "int32")):
    with T.Kernel(1, threads=128) as bx:
        for j in LOOP(N):
            T.atomic_add(S[j % 8], A[j])
            T.atomic_max(X[(j * 3) % 8], I[j] * j)
)";
  for (int64_t n : {5, 256, 700}) {
    auto [batched, scalar] = run_both(source, {{"N", n}});
    EXPECT_EQ(batched, "") << "N=" << n;
    EXPECT_EQ(scalar, "") << "N=" << n;
  }
}

TEST(BatchedLoops, AffineIndicesRunsAndWrapsMatchTheScalarLoop) {
  // Indices linear in the loop variable take the batched form's shortcuts (bounds from the
  // first and last lanes, contiguous runs read and marked at once): strided, reversed and
  // int64 ones; an int32 product that wraps in some lanes (no shortcut: the wrapped
  // values, as the scalar loop computes them); runs of float16, bfloat16 and float32
  // holding infinities and NaNs, which are read element by element; float32 arithmetic
  // that overflows or gives NaN (rounded element by element).
  const std::string source = R"(
import tilelang.language as T

N = T.symbolic("N")
K = T.symbolic("K")

@T.prim_func
def affine(A: T.Tensor((N,), "float16"), B: T.Tensor((N,), "bfloat16"),
           F: T.Tensor((K,), "float32"), C: T.Tensor((N,), "float32"),
           D: T.Tensor((N,), "float16"), E: T.Tensor((N,), "bfloat16"),
           W: T.Tensor((N,), "int32"), G: T.Tensor((N,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        S = T.alloc_fragment((N,), "float16")
        R = T.alloc_fragment((N,), "bfloat16")
        for j in LOOP(N):
            S[j] = A[j] * T.float16(65504) * T.float16(4)
            R[N - 1 - j] = B[j] * T.bfloat16(3e38) * T.bfloat16(4)
        for j in LOOP(N):
            D[j] = S[j] - S[N - 1 - j]
            E[j] = R[j] + T.cast(S[j], "bfloat16")
            C[j] = F[j * 3 + 1] + F[T.cast(j, "int64") * 2 + 2] + T.cast(S[j], "float32")
            W[j] = (j * 1000000007 + 5) % 1000
            G[j] = F[j] * T.float32(3e38) * T.float32(4) + F[j] / (F[j + 1] - F[j + 1])
)";
  for (int64_t n : {1, 255, 256, 257, 700}) {
    auto [batched, scalar] = run_both(source, {{"N", n}, {"K", 3 * n + 2}});
    EXPECT_EQ(batched, "") << "N=" << n;
    EXPECT_EQ(scalar, "") << "N=" << n;
  }
}

TEST(BatchedLoops, ErrorsCarryTheScalarLoopsText) {
  // An out-of-bounds load, a store past the end, a read of an allocation's element that
  // nothing wrote, a division by zero and an atomic update past the end: the same
  // message as element by element.
  const std::string out_of_bounds = R"(
import tilelang.language as T

@T.prim_func
def oob(A: T.Tensor((300,), "float32"), B: T.Tensor((300,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for j in LOOP(300):
            B[j] = A[j + 1]
)";
  const std::string store = R"(
import tilelang.language as T

@T.prim_func
def store(A: T.Tensor((300,), "float32"), B: T.Tensor((300,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for j in LOOP(300):
            B[j * 2 - 3] = A[j]
)";
  const std::string unwritten = R"(
import tilelang.language as T

@T.prim_func
def unwritten(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        S = T.alloc_fragment((64,), "float32")
        for j in LOOP(32):
            S[j] = A[j]
        for j in LOOP(64):
            B[j] = S[j]
)";
  const std::string division = R"(
import tilelang.language as T

@T.prim_func
def division(I: T.Tensor((64,), "int32"), O: T.Tensor((64,), "int32")):
    with T.Kernel(1, threads=128) as bx:
        for j in LOOP(64):
            O[j] = I[j] // (j - 40)
)";
  const std::string atomic = R"(
import tilelang.language as T

@T.prim_func
def atomic(A: T.Tensor((64,), "float32"), S: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for j in LOOP(64):
            T.atomic_add(S[j // 7], A[j])
)";
  for (const std::string* source : {&out_of_bounds, &store, &unwritten, &division, &atomic}) {
    auto [batched, scalar] = run_both(*source, {});
    EXPECT_NE(batched, "");
    EXPECT_EQ(batched, scalar);
  }
}

}  // namespace
}  // namespace tilec::ir
