// Constructs of TileLang's real kernels (issue 11, third part), each in a small kernel
// written as TileLang users write it: T.Pipelined with order=/stage= (same results as the
// serial loop), T.atomic_addx2/x4 on float16, bfloat16 and float32 (mixed dtypes, sliced
// destinations), T.atomic_add into float16, TVM script's if-frames, multi-context `with`,
// T.Kernel without grid extents, the generic T.reduce(buf, out, kind, dim, clear), scalar
// parameters with defaults (no value given), bitwise reducers
// (bitand/bitor/bitxor, updated atomically from the block's threads) and a factory
// computing its sizes with tilelang.math, bit_length, isinstance, `in` and
// DataType(...).bits; and what the corpus measurement found blocking TileLang's kernels:
// T.any_of / T.all_of over a block mask, factory string comparisons (dtype == "int8"), a
// storage scope held in a constant, constant tables indexed in a factory, tvm.te.var
// sizes, T.const names separated by spaces and a T.Parallel row of one iteration that
// accumulates; T.cummax, T.Select, T.shift_left/right, T.assume and TVM script blocks;
// while loops over T.alloc_var values. Each is
// parsed, checked, compiled on every CPU backend pair and on opencl (PoCL here; skipped, saying
// why, without a platform) and compared with the reference interpreter. 16-bit atomics under
// contention are checked against exact sums.
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/exec/execution_backend.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/check.h"

namespace tilec {
namespace {

struct RealCase {
  std::string name;
  std::string source;  // after the imports
  std::map<std::string, std::string> defines = {};
  // What the cuda target's refusal says, for a construct it refuses by design
  // (docs/architecture.md, "The cp.async pipeline"); empty: it compiles there too.
  std::string cuda_refusal = "";
};

void PrintTo(const RealCase& c, std::ostream* out) {
  *out << c.name;
}

const char* kImports = "import tilelang\nimport tilelang.language as T\n\n";

std::vector<RealCase> cases() {
  return {
      {"PipelinedOrderStage",
       R"(
@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=16, block_N=16, block_K=8, order=None, stage=None, trans_A=False):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float32"), B: T.Tensor((K, N), "float32"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=64) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float32")
            B_shared = T.alloc_shared((block_K, block_N), "float32")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), order=order, stage=stage):
                if trans_A:
                    T.copy(A[k * block_K, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                for i, j in T.Parallel(block_K, block_N):
                    B_shared[i, j] = B[k * block_K + i, bx * block_N + j]
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main
)",
       {{"M", "32"}, {"N", "32"}, {"K", "32"}, {"order", "[2, 0, 1]"}, {"stage", "[0, 0, 1]"}},
       "cannot be realized on cuda: statement 1"},
      {"GenericReduce", R"(
@T.prim_func
def f(A: T.Tensor((8, 16), "float32"), S: T.Tensor((8,), "float32"),
      M: T.Tensor((8,), "float32"), N: T.Tensor((16,), "float32"),
      AS: T.Tensor((8,), "float32"), AM: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        a = T.alloc_fragment((8, 16), "float32")
        s = T.alloc_fragment((8,), "float32")
        m = T.alloc_fragment((8,), "float32")
        n = T.alloc_fragment((16,), "float32")
        abs_sum = T.alloc_fragment((8,), "float32")
        abs_max = T.alloc_fragment((8,), "float32")
        T.copy(A, a)
        T.fill(abs_max, 0.75)
        T.reduce(a, s, "sum", 1, True)
        T.reduce(a, m, "max", dim=1, clear=True)
        T.reduce(a, n, "min", 0, True)
        T.reduce(a, abs_sum, "abssum", -1, True)
        T.reduce(a, abs_max, reduce_type="absmax", dim=1, clear=False)
        T.copy(s, S)
        T.copy(m, M)
        T.copy(n, N)
        T.copy(abs_sum, AS)
        T.copy(abs_max, AM)
)"},
      {"ScalarParameterDefaults", R"(
@T.prim_func
def f(A: T.Tensor((4, 16), "float32"), B: T.Tensor((4, 16), "float32"), n: T.int32 = 11,
      scale: T.float32 = 0.5, shift: T.int32 = -3, flip: T.int32 = 1):
    with T.Kernel(4, threads=16) as bx:
        for j in T.Parallel(16):
            if flip != 0 and j < n:
                B[bx, j] = A[bx, j] * scale + shift
            else:
                B[bx, j] = A[bx, j]
)"},
      {"BitwiseReducers", R"(
@T.prim_func
def f(I: T.Tensor((64, 16), "int32"), U: T.Tensor((64, 16), "uint32"),
      And: T.Tensor((4,), "int32"), Or: T.Tensor((4,), "uint32"), Xor: T.Tensor((4,), "int32")):
    with T.Kernel(1, threads=64) as bx:
        a = T.alloc_reducer((4,), "int32", op="bitand")
        o = T.alloc_reducer((4,), "uint32", op="bitor")
        x = T.alloc_reducer((4,), "int32", op="bitxor")
        T.reducer_init(a)
        T.reducer_init(o)
        T.reducer_init(x)
        for i, j in T.Parallel(64, 16):
            T.reducer_update(a[j % 4], I[i, j] | 3855)
            T.reducer_update(o[j // 4], U[i, j] & 65793)
            T.reducer_update(x[i % 4], I[i, j])
        a_out = T.alloc_fragment((4,), "int32")
        T.finalize_reducer(a, a_out)
        T.finalize_reducer(o)
        T.finalize_reducer(x)
        T.copy(a_out, And)
        T.copy(o, Or)
        T.copy(x, Xor)
)"},
      {"AtomicAddx2Float16", R"(
@tilelang.jit
def atomic_addx2(M=16, N=32, block_M=8, block_N=16, dtype=T.float16):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), T.ceildiv(N, block_N), threads=32) as (bx, by):
            for i, j in T.Parallel(block_M, block_N // 2):
                idx_i = bx * block_M + i
                idx_j = by * block_N + j * 2
                T.atomic_addx2(B[idx_i, idx_j], A[idx_i, idx_j])
    return main
)"},
      {"AtomicAddx2MixedDtypes", R"(
@tilelang.jit
def atomic_addx2(M=16, N=32, src_dtype="float32", dst_dtype="bfloat16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), src_dtype), B: T.Tensor((M, N), dst_dtype)):
        with T.Kernel(M, threads=16) as bx:
            for j in T.Parallel(N // 2):
                T.atomic_addx2(B[bx, j * 2:j * 2 + 2], A[bx, j * 2:j * 2 + 2])
    return main
)"},
      {"AtomicAddx4SlicedAndOffset", R"(
@T.prim_func
def f(V: T.Tensor((8, 4), "float32"), D: T.Tensor((4, 4), "float32"),
      A: T.Tensor((16,), "float16"), B: T.Tensor((16,), "float16")):
    with T.Kernel(1, threads=8):
        t = T.get_thread_binding()
        T.atomic_addx4(D[t % 4, 0:4], V[t, 0:4])
        if t < 4:
            T.atomic_addx4(B[t * 4], A[t * 4])
)"},
      {"AtomicAddIntoFloat16WithoutGrid", R"(
@tilelang.jit
def atomic_add(N=8, src_dtype="float32", dst_dtype="float16"):
    @T.prim_func
    def main(Src: T.Tensor((N,), src_dtype), Out: T.Tensor((N,), dst_dtype),
             Prev: T.Tensor((N,), dst_dtype)):
        with T.Kernel(threads=1):
            frag = T.alloc_fragment((N,), src_dtype)
            for i in T.Parallel(N):
                frag[i] = Src[i]
            for i in T.Parallel(N):
                Prev[i] = T.atomic_add(Out[i], frag[i], return_prev=True)
    return main
)"},
      {"IfFramesAndMultiContextWith", R"(
@T.prim_func
def f(A: T.Tensor((8, 16), "float32"), B: T.Tensor((8, 16), "float32")):
    with T.Kernel(8, threads=16) as bx:
        for i in T.Parallel(16):
            with T.If(A[bx, i] <= 0):
                with T.Then():
                    B[bx, i] = 0.0
                with T.Else():
                    B[bx, i] = A[bx, i] * 2.0
            with T.If(i < bx), T.Then():
                B[bx, i] = B[bx, i] + 1.0
)"},
      {"FactoryConstantsFromPython",
       R"(
import math
from tvm import DataType

def softmax(M, N, dtype="float32"):
    BN = min(tilelang.math.next_power_of_2(N), 64)
    assert isinstance(N, int) and dtype in ["float32", T.float16]
    vec = 128 // DataType(dtype).bits
    rows = 1 << (M.bit_length() - 1)
    scale = 1.0 / math.sqrt(N)

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, rows), threads=vec) as bx:
            for i, j in T.Parallel(rows, BN):
                if j < N and bx * rows + i < M:
                    Y[bx * rows + i, j] = T.clamp(X[bx * rows + i, j] * scale, min_val=-0.25,
                                                  max_val=0.25)
    return main
)",
       {{"M", "12"}, {"N", "40"}}},
      // Found by the corpus measurement (tools/corpus/measure.py).
      {"AnyOfAllOfBlockMask", R"(
def masked_rows(M=16, N=8, cond=3):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), Mask: T.Tensor((M, cond), "bool"),
             W: T.Tensor((M, cond), "int32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(M, threads=32) as bx:
            local = T.alloc_local((cond,), "int32")
            for c in T.serial(cond):
                local[c] = W[bx, c] % 3
            for j in T.Parallel(N):
                B[bx, j] = 0.0
            if T.any_of(Mask[bx, :]):
                for j in T.Parallel(N):
                    B[bx, j] = A[bx, j] * 2.0
            if T.all_of(local):
                for j in T.Parallel(N):
                    B[bx, j] = B[bx, j] + 1.0
            if T.any_of(Mask[bx, 1:3]) and not T.all_of(Mask[bx, 0:2]):
                for j in T.Parallel(N):
                    B[bx, j] = B[bx, j] - 0.5

    return main
)"},
      {"FactoryStringComparisons",
       R"(
@tilelang.jit(out_idx=[-1])
def convert(N=32, in_dtype="float16", out_dtype="float32"):
    widen = in_dtype != out_dtype and out_dtype == "float32"
    factor = 2.0 if in_dtype == T.float16 else 3.0

    @T.prim_func
    def main(A: T.Tensor((N,), in_dtype), B: T.Tensor((N,), out_dtype)):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                if widen:
                    B[i] = T.Cast(out_dtype, A[i]) * factor
                elif in_dtype == "int8":
                    B[i] = T.Cast(out_dtype, A[i] + 1)
                else:
                    B[i] = T.Cast(out_dtype, A[i])

    return main
)",
       {{"in_dtype", "int8"}, {"out_dtype", "int8"}}},
      {"ScopeConstantAndTables", R"(
def tables(n=64, dtype="float32"):
    elem_size = {"float32": 4, "float16": 2}[dtype]
    threads = [0, 32, 64, 128][n // 32]
    per_thread = (16 // elem_size, 1)[0]
    shared_scope = "shared"

    @T.prim_func
    def main(A: T.Tensor((n * per_thread,), dtype), B: T.Tensor((n * per_thread,), dtype)):
        with T.Kernel(1, threads=threads) as bx:
            s = T.alloc_shared((n * per_thread,), dtype, scope=shared_scope)
            T.copy(A, s)
            for i in T.Parallel(n * per_thread):
                B[i] = s[i] + elem_size
)"},
      {"TvmTeVarSizes",
       R"(
from tilelang import tvm


def scale(block=8):
    M = tvm.te.var("m")

    @T.prim_func
    def main(A: T.Tensor((M, 4), "float32"), B: T.Tensor((M, 4), "float32")):
        with T.Kernel(T.ceildiv(M, block), threads=32) as bx:
            for i, j in T.Parallel(block, 4):
                if bx * block + i < M:
                    B[bx * block + i, j] = A[bx * block + i, j] * 3.0

    return main
)",
       {{"m", "20"}}},
      {"ConstNamesWithSpaces",
       R"(
@tilelang.jit
def add(A, B, block=4):
    M, N = T.const("M N")
    A: T.Tensor((M, N), "float32")
    B: T.Tensor((M, N), "float32")
    with T.Kernel(T.ceildiv(M, block), threads=32) as bx:
        for i, j in T.Parallel(block, N):
            B[bx * block + i, j] = A[bx * block + i, j] + 1.0
)",
       {{"M", "8"}, {"N", "6"}}},
      {"ParallelRowOfOneAccumulates", R"(
@T.prim_func
def f(X: T.Tensor((8, 16), "float32"), DG: T.Tensor((16,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        acc = T.alloc_fragment((16,), "float32")
        row = T.alloc_shared((1, 16), "float32")
        T.clear(acc)
        for k in T.serial(8):
            T.copy(X[k, 0], row)
            for i, j in T.Parallel(1, 16):
                acc[j] += row[i, j] * row[i, j]
        T.copy(acc, DG)
)"},
      // Issue 34's additions: T.cummax (TileLang's scan by max, on a shared tile along
      // either dim, in place and reversed), TVM's T.Select and T.shift_left/right, and
      // T.assume (checked, dropped).
      {"CummaxAlongEitherDimAndReversed", R"(
@T.prim_func
def f(A: T.Tensor((8, 16), "float32"), B: T.Tensor((8, 16), "float32"),
      C: T.Tensor((8, 16), "float32")):
    with T.Kernel(1, threads=32):
        s = T.alloc_shared((8, 16), "float32")
        t = T.alloc_shared((8, 16), "float32")
        T.copy(A, s)
        T.cummax(s, t, dim=1)
        T.copy(t, B)
        T.cummax(src=s, dim=0, reverse=True)
        T.copy(s, C)
)"},
      {"TvmScriptBlocks", R"(
@T.prim_func
def f(A: T.Tensor((4, 8), "float32"), C: T.Tensor((4, 8), "float32")):
    with T.Kernel(1, threads=4) as bx:
        A_shared = T.alloc_shared((4, 1), "float32")
        tx = T.get_thread_binding()
        for i in T.serial(8):
            with T.sblock("copy_a"):
                T.reads(A[tx, i])
                T.writes(A_shared[tx, 0])
                A_shared[tx, 0] = A[tx, i]
            with T.sblock():
                T.block_attr({"note": 1})
                C[tx, i] = A_shared[tx, 0] * 2.0
)"},
      {"SelectShiftsAndAssume", R"(
@T.prim_func
def f(A: T.Tensor((64,), "int32"), B: T.Tensor((64,), "int32"),
      X: T.Tensor((64,), "float32"), Y: T.Tensor((64,), "float32")):
    with T.Kernel(2, threads=32) as bx:
        T.assume(bx < 2)
        for i in T.Parallel(32):
            x = A[bx * 32 + i]
            B[bx * 32 + i] = T.Select(x > 0, T.shift_left(x & 255, 2), T.shift_right(x, 3))
            Y[bx * 32 + i] = T.Select(X[bx * 32 + i] < 0.0, -X[bx * 32 + i], X[bx * 32 + i])
)"},
      // TileLang's own while loop (testing/python/language/test_tilelang_language_frontend_v2.py).
      {"WhileOverVars", R"(
@T.prim_func
def f(A: T.Tensor((2,), "int32")):
    with T.Kernel(1) as _:
        i = T.alloc_var(T.int32, 0)
        total = T.alloc_var(T.int32, 0)
        while i < 10:
            total += i
            i += 1
        A[0] = total
        A[1] = i
)"},
  };
}

using Backend = testing::CpuBackend;

ir::IRModule parse(const RealCase& c) {
  ir::ParseOptions options;
  options.filename = c.name + ".py";
  options.defines = c.defines;
  std::string source = kImports + c.source;
  ir::IRModule mod = ir::parse_kernel_source(source, options);
  ir::check_module_or_throw(mod, options.filename, source);
  return mod;
}

using Param = std::tuple<RealCase, Backend>;
class RealConstructs : public testing::EngineTest, public ::testing::WithParamInterface<Param> {};

TEST_P(RealConstructs, CompilesAndMatchesTheInterpreter) {
  const auto& [c, backend] = GetParam();
  TILEC_SKIP_UNLESS_RUNNABLE(backend);
  ir::IRModule mod = parse(c);
  ASSERT_EQ(mod.functions().size(), 1u);
  if (backend.target == "cuda" && !c.cuda_refusal.empty()) {
    try {
      testing::compile_on(mod, backend);
      ADD_FAILURE() << "cuda realized a schedule it documents as refused";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(c.cuda_refusal), std::string::npos) << e.what();
    }
    return;
  }
  TILEC_COMPILE_ON_OR_SKIP(kernel, mod, backend);
  ASSERT_EQ(kernel.context().target().kind(), backend.target);
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

INSTANTIATE_TEST_SUITE_P(TileLang, RealConstructs,
                         ::testing::Combine(::testing::ValuesIn(cases()),
                                            ::testing::ValuesIn(testing::runnable_backends())),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::get<1>(info.param).name();
                         });

// Many blocks (run at once by the CPU's thread pool, by work-groups on opencl) add 1.0
// into the same few 16-bit elements; sums stay exact (float16: up to 2048, bfloat16: up
// to 256), so a lost update shows as a wrong count.
class SixteenBitAtomics : public testing::EngineTest,
                          public ::testing::WithParamInterface<std::tuple<std::string, Backend>> {};

TEST_P(SixteenBitAtomics, AreAtomicUnderContention) {
  const auto& [dtype, backend] = GetParam();
  TILEC_SKIP_UNLESS_RUNNABLE(backend);
  const int64_t blocks = 64, per_block = dtype == "float16" ? 16 : 2;  // 1024 or 128 each
  RealCase c{"contention_" + dtype, R"(
@T.prim_func
def f(B: T.Tensor((4,), ")" + dtype + R"("), S: T.Tensor((4,), ")" +
                                        dtype + R"(")):
    with T.Kernel()" + std::to_string(blocks) +
                                        R"(, threads=4) as bx:
        t = T.get_thread_binding()
        shared = T.alloc_shared((4,), ")" +
                                        dtype + R"(")
        shared[t] = 0.0
        T.sync_threads()
        for k in T.serial()" + std::to_string(per_block) +
                                        R"():
            T.atomic_add(B[t], 1.0)
            T.atomic_max(shared[t], k * 1.0)
        T.sync_threads()
        S[t] = shared[t]
)"};
  ir::IRModule mod = parse(c);
  TILEC_COMPILE_ON_OR_SKIP(kernel, mod, backend);
  ir::DataType t = *ir::DataType::parse(dtype);
  ir::HostTensor b(t, {4}), s(t, {4});
  for (int64_t i = 0; i < 4; ++i) b.set(i, double(i));
  std::vector<KernelArg> args = {b.view(), s.view()};
  kernel.call(args);
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.get(i), double(i + blocks * per_block)) << dtype << " element " << i;
    EXPECT_EQ(s.get(i), double(per_block - 1)) << dtype << " element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(TileLang, SixteenBitAtomics,
                         ::testing::Combine(::testing::Values("float16", "bfloat16"),
                                            ::testing::ValuesIn(testing::runnable_backends())),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param).name();
                         });

}  // namespace
}  // namespace tilec
