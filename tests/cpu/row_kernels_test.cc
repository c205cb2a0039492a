// What makes row kernels (softmax, norms) fast on the cpu targets, each against the
// reference interpreter: T.reduce_* along a row with vector accumulators
// (cpu.reduce_vectorized, tile_ops.h), consecutive row loops fused (fuse_row_loops.h),
// and math calls that the C compiler may vectorize through libmvec (vector_math.h).
#include "tilec/cpu/fuse_row_loops.h"
#include "tilec/cpu/tile_ops.h"

#include "run_on_cpu.h"
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/lower_tile_ops.h"

#include <gtest/gtest.h>

namespace tilec::cpu {
namespace {

using namespace ir;

const target::Target kAvx512 = target::Target::parse("c -mcpu=skylake-avx512");

int count_allocations(const Stmt& s, const std::string& name) {
  int n = 0;
  post_order_visit(s, [&](const Stmt* st, const Expr*) {
    if (st && st->kind() == StmtKind::kAllocate && st->as<AllocateNode>()->buffer->name == name)
      ++n;
  });
  return n;
}

int count_top_level_loops(const Stmt& body) {
  // The kernel's statements sit in the innermost allocation's body.
  Stmt s = body;
  while (true) {
    if (auto* k = s.as<KernelNode>())
      s = k->body;
    else if (auto* a = s.as<AllocateNode>())
      s = a->body;
    else
      break;
  }
  int n = s.kind() == StmtKind::kFor;
  if (auto* seq = s.as<SeqNode>())
    for (const Stmt& st : seq->stmts) n += st.kind() == StmtKind::kFor;
  return n;
}

void expect_interpreter_results(const IRModule& mod, const IRModule& lowered) {
  for (const auto& f : mod.functions()) {
    RandomArgs expected = make_random_args(f, {}, 5);
    RandomArgs actual = make_random_args(lowered.lookup(f->name), {}, 5);
    interpret(f, expected.args);
    interpret(lowered.lookup(f->name), actual.args);
    for (size_t t = 0; t < expected.tensors.size(); ++t) {
      CompareResult r = compare_tensors(actual.tensors[t].view(), expected.tensors[t].view());
      EXPECT_TRUE(r.ok) << f->name << " tensor #" << t << ": " << r.first_mismatch;
    }
  }
}

// Rows of 200 floats: 3 chunks of 64 (4 AVX-512 vectors) and a remainder of 8; clear=False
// combines with what dst held.
constexpr const char* kReduces = R"(
import tilelang.language as T
@T.prim_func
def reduces(X: T.Tensor((4, 200), "float32"), S: T.Tensor((4, 5), "float32")):
    with T.Kernel(1, threads=32) as bx:
        x = T.alloc_fragment((4, 200), "float32")
        s = T.alloc_fragment((4,), "float32")
        mx = T.alloc_fragment((4,), "float32")
        mn = T.alloc_fragment((4,), "float32")
        a = T.alloc_fragment((4,), "float32")
        am = T.alloc_fragment((4,), "float32")
        T.copy(X, x)
        T.reduce_sum(x, s, dim=1)
        T.fill(mx, 0.5)
        T.reduce_max(x, mx, dim=1, clear=False)
        T.reduce_min(x, mn, dim=1)
        T.reduce_abssum(x, a, dim=1)
        T.reduce_absmax(x, am, dim=1)
        for i in T.Parallel(4):
            S[i, 0] = s[i]
            S[i, 1] = mx[i]
            S[i, 2] = mn[i]
            S[i, 3] = a[i]
            S[i, 4] = am[i]
)";

TEST(CpuRowKernels, RowReductionsKeepVectorAccumulatorsAndMatchTheInterpreter) {
  IRModule mod = parse_kernel_source(kReduces);
  IRModule lowered = transform::lower_tile_ops(mod, kAvx512);
  EXPECT_EQ(count_allocations(lowered.lookup("reduces")->body, "part"), 5);
  expect_interpreter_results(mod, lowered);
  auto r = testing::run_and_compare(mod, "reduces", {}, 3);
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(CpuRowKernels, ShortRowsOuterDimensionsAndHalfPrecisionKeepTheGenericNest) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def other(X: T.Tensor((64, 8), "float32"), H: T.Tensor((4, 256), "float16"),
          A: T.Tensor((8,), "float32"), B: T.Tensor((64,), "float32"), C: T.Tensor((4,), "float16")):
    with T.Kernel(1, threads=32) as bx:
        T.reduce_sum(X, A, dim=0)
        T.reduce_max(X, B, dim=1)
        T.reduce_sum(H, C, dim=1)
)");
  IRModule lowered = transform::lower_tile_ops(mod, kAvx512);
  EXPECT_EQ(count_allocations(lowered.lookup("other")->body, "part"), 0);
  expect_interpreter_results(mod, lowered);
}

// A softmax over rows of 100 in blocks of 4 rows: the copy in, fill, max, exp, sum,
// division and copy out become one loop over the rows.
constexpr const char* kSoftmax = R"(
import tilelang.language as T
@T.prim_func
def softmax(X: T.Tensor((8, 100), "float32"), Y: T.Tensor((8, 100), "float32")):
    with T.Kernel(2, threads=32) as bx:
        x = T.alloc_fragment((4, 100), "float32")
        m = T.alloc_fragment((4,), "float32")
        s = T.alloc_fragment((4,), "float32")
        T.copy(X[bx * 4, 0], x)
        T.fill(m, -T.infinity("float32"))
        T.reduce_max(x, m, dim=1, clear=False)
        for i, j in T.Parallel(4, 100):
            x[i, j] = T.exp(x[i, j] - m[i])
        T.reduce_sum(x, s, dim=1)
        for i, j in T.Parallel(4, 100):
            x[i, j] /= s[i]
        T.copy(x, Y[bx * 4, 0])
)";

TEST(CpuRowKernels, RowLoopsOfASoftmaxFuseIntoOne) {
  IRModule mod = parse_kernel_source(kSoftmax);
  IRModule lowered = transform::lower_tile_ops(mod, kAvx512);
  Stmt body = lowered.lookup("softmax")->body;
  EXPECT_EQ(count_top_level_loops(body), 7);
  EXPECT_EQ(count_top_level_loops(fuse_row_loops(body)), 1);
  auto r = testing::run_and_compare(mod, "softmax", {}, 9);
  EXPECT_TRUE(r.ok) << r.report;
  // libmvec's declarations reach the C compiler (they are guarded for other compilers).
  EXPECT_NE(r.device_source.find("__simd__(\"notinbranch\")"), std::string::npos);
}

// The second loop reads row i + 1 of what the first wrote: fused, row i would read a row
// not yet written, so the loops stay apart.
TEST(CpuRowKernels, LoopsReadingAnotherRowStayApart) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def shifted(X: T.Tensor((5, 64), "float32"), Y: T.Tensor((4, 64), "float32")):
    with T.Kernel(1, threads=32) as bx:
        x = T.alloc_fragment((5, 64), "float32")
        for i, j in T.Parallel(5, 64):
            x[i, j] = X[i, j] * 2.0
        for i, j in T.Parallel(4, 64):
            Y[i, j] = x[i + 1, j]
)");
  IRModule lowered = transform::lower_tile_ops(mod, kAvx512);
  Stmt body = lowered.lookup("shifted")->body;
  EXPECT_EQ(count_top_level_loops(fuse_row_loops(body)), 2);
  auto r = testing::run_and_compare(mod, "shifted", {}, 4);
  EXPECT_TRUE(r.ok) << r.report;
}

// exp, exp2, log, tanh and sigmoid in vectorized loops (libmvec where the C library has
// it) within the float32 tolerance of the interpreter's libm results.
TEST(CpuRowKernels, VectorMathMatchesTheInterpreter) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def math(X: T.Tensor((1000,), "float32"), Y: T.Tensor((5, 1000), "float32")):
    with T.Kernel(1, threads=32) as bx:
        for i in T.Parallel(1000):
            Y[0, i] = T.exp(X[i])
            Y[1, i] = T.exp2(X[i] * 3.0)
            Y[2, i] = T.log(T.abs(X[i]) + 0.001)
            Y[3, i] = T.tanh(X[i] * 4.0)
            Y[4, i] = T.sigmoid(X[i] * 8.0)
)");
  auto r = testing::run_and_compare(mod, "math", {}, 2);
  EXPECT_TRUE(r.ok) << r.report;
}

}  // namespace
}  // namespace tilec::cpu
