// The TileLang constructs of issue 11, each in a small kernel written the way TileLang
// users write it: parsed, checked, compiled on every CPU backend pair (`c` with native,
// `llvm` with llvm_jit and native; named explicitly, not `auto`), and compared with the
// reference interpreter on the same random inputs.
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/check.h"

namespace tilec {
namespace {

struct ConstructCase {
  std::string name;
  std::string source;  // after the imports
  std::map<std::string, std::string> defines = {};
};

void PrintTo(const ConstructCase& c, std::ostream* out) {
  *out << c.name;
}

const char* kImports = "import tilelang\nimport tilelang.language as T\n\n";

std::vector<ConstructCase> cases() {
  return {
      {"KernelWithoutAsAndBlockBinding", R"(
@T.prim_func
def f(A: T.Tensor((8, 12), "float32"), B: T.Tensor((8, 12), "float32")):
    with T.Kernel(3, 2, threads=32):
        bx = T.get_block_binding(0)
        by = T.get_block_binding(1)
        for i, j in T.Parallel(4, 4):
            B[by * 4 + i, bx * 4 + j] = A[by * 4 + i, bx * 4 + j] * 2.0
)"},
      {"TupleUnpacking", R"(
@T.prim_func
def f(A: T.Tensor((6, 4), "float32"), B: T.Tensor((24,), "float32")):
    with T.Kernel(24) as x:
        r, c = x // 4, x % 4
        B[x] = A[r, c] + 1.0
)"},
      {"AllocBufferDeclBufferAndScopes", R"(
@T.prim_func
def f(A: T.Tensor((16, 8), "float32"), B: T.Tensor((16, 8), "float32")):
    with T.Kernel(2) as bx:
        s = T.alloc_buffer((8, 8), "float32", scope="shared.dyn")
        d = T.decl_buffer((8, 8), "float32", scope="local.fragment")
        l = T.alloc_shared((8, 8), "float32", scope="shared")
        n: T.int32 = 3
        T.copy(A[bx * 8, 0], s)
        for i, j in T.Parallel(8, 8):
            d[i, j] = s[i, j] * n
        T.copy(d, l)
        T.copy(l, B[bx * 8, 0])
)"},
      {"AtomicElementAddMaxMin", R"(
@T.prim_func
def f(A: T.Tensor((64,), "float32"), I: T.Tensor((64,), "int32"), S: T.Tensor((1,), "float32"),
      Mx: T.Tensor((1,), "int32"), Mn: T.Tensor((1,), "float32")):
    with T.Kernel(8) as bx:
        for i in T.serial(8):
            T.atomic_add(S[0], A[bx * 8 + i])
            T.atomic_max(Mx[0], I[bx * 8 + i])
            T.atomic_min(Mn[0], A[bx * 8 + i])
)"},
      {"AtomicTileAdd", R"(
@T.prim_func
def f(A: T.Tensor((4, 20, 12), "float32"), C: T.Tensor((20, 12), "float32")):
    with T.Kernel(3, 4) as (bx, bz):
        acc = T.alloc_fragment((8, 12), "float32")
        T.copy(A[bz, bx * 8, 0], acc)
        T.atomic_add(C[bx * 8, 0], acc)
)"},
      {"SubscriptAnnotationsShapeAndDtype", R"(
@T.prim_func
def f(A: T.Tensor[(6, 10), "float16"], B: T.Buffer[(6, 10), "float32"]):
    with T.Kernel(1) as bx:
        t = T.alloc_fragment(A.shape, B.dtype)
        T.copy(A, t)
        for i, j in T.Parallel(A.shape[0], A.shape[1]):
            B[i, j] = T.Cast(B.dtype, t[i, j]) + T.cast(A.shape[-1], "float32")
)"},
      {"HintsAreAcceptedWithoutChangingResults", R"(
@T.prim_func(private=True)
def f(A: T.Tensor((32, 32), "float32"), B: T.Tensor((32, 32), "float32")):
    T.func_attr({"global_symbol": "f", "tir.noalias": True})
    with T.Kernel(2, 2, threads=64) as (bx, by):
        s = T.alloc_shared((16, 16), "float32")
        T.annotate_layout({s: None})
        T.use_swizzle(panel_size=2, order="row")
        T.copy(A[by * 16, bx * 16], s, annotations={"coalesced_width": 4}, disable_tma=True)
        T.copy(s, B[by * 16, bx * 16])
)"},
      {"GemmKeywords", R"(
@T.prim_func
def f(A: T.Tensor((16, 32), "float16"), B: T.Tensor((24, 32), "float16"),
      C: T.Tensor((16, 24), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_shared((16, 32), "float16")
        b = T.alloc_shared((24, 32), "float16")
        c = T.alloc_fragment((16, 24), "float32")
        T.copy(A, a)
        T.copy(B, b)
        T.gemm(a, b, c, transpose_B=True, policy=T.GemmWarpPolicy.Square, clear_accum=True, k_pack=1)
        T.copy(c, C)
)"},
      {"Reducer", R"(
@T.prim_func
def f(A: T.Tensor((16, 16), "float32"), S: T.Tensor((16,), "float32")):
    with T.Kernel(1) as bx:
        r = T.alloc_reducer((16,), "float32", op="sum", replication="all")
        T.fill(r, 0)
        for i in T.serial(16):
            for j in T.Parallel(16):
                r[j] += A[i, j]
        T.finalize_reducer(r)
        T.copy(r, S)
)"},
      {"ReducerEpochSumMaxMinFromParallelIterations", R"(
@T.prim_func
def f(A: T.Tensor((32, 16), "float32"), I: T.Tensor((32, 16), "int32"),
      S: T.Tensor((4,), "float32"), Mx: T.Tensor((4,), "int32"), Mn: T.Tensor((4,), "float32")):
    with T.Kernel(2) as bx:
        s = T.alloc_reducer((4,), "float32", op="sum")
        m = T.alloc_reducer((4,), "int32", op="max")
        n = T.alloc_reducer((4,), "float32", op="min")
        T.reducer_init(s)
        T.reducer_init(m)
        T.reducer_init(n, 1e30)
        for i, j in T.Parallel(16, 16):
            T.reducer_update(s[j % 4], A[bx * 16 + i, j])
            T.reducer_update(m[j // 4], I[bx * 16 + i, j])
            T.reducer_update(n[i % 4], A[bx * 16 + i, j])
        s_out = T.alloc_fragment((4,), "float32")
        m_out = T.alloc_fragment((4,), "int32")
        T.finalize_reducer(s, s_out)
        T.finalize_reducer(m, m_out)
        T.finalize_reducer(n)
        for k in T.Parallel(4):
            T.atomic_add(S[k], s_out[k])
            T.atomic_max(Mx[k], m_out[k])
            T.atomic_min(Mn[k], n[k])
)"},
      {"MinMaxValue", R"(
@T.prim_func
def f(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float32"), C: T.Tensor((8,), "int32")):
    with T.Kernel(1) as bx:
        for i in T.Parallel(8):
            B[i] = T.max(A[i], T.min_value("float32")) + T.min(A[i], T.max_value("float16"))
            C[i] = T.max_value("int8") + T.min_value("int16") + T.clamp(i * 3 - 4, 0, 9)
)"},
      {"RampVectorStoresAndBroadcast", R"(
@T.prim_func
def f(A: T.Tensor((8, 16), "float32"), B: T.Tensor((8, 16), "float32"), C: T.Tensor((8, 8), "float32")):
    with T.Kernel(2) as bx:
        for i in T.serial(4):
            r = bx * 4 + i
            B[r, T.Ramp(0, 1, 16)] = A[r, T.Ramp(0, 1, 16)] * T.Broadcast(2.0, 16)
            C[r, T.Ramp(0, 1, 8)] = A[r, T.Ramp(1, 2, 8)] + A[r, T.Ramp(0, 2, 8)]
            C[r, T.Ramp(7, -1, 4)] += T.Broadcast(A[r, 0], 4)
)"},
      {"SwizzleRowGemm", R"(
@T.prim_func
def f(A: T.Tensor((48, 32), "float32"), B: T.Tensor((32, 64), "float32"), C: T.Tensor((48, 64), "float32")):
    with T.Kernel(4, 3, threads=64) as (bx, by):
        T.use_swizzle(panel_size=2)
        a = T.alloc_shared((16, 32), "float32")
        b = T.alloc_shared((32, 16), "float32")
        c = T.alloc_fragment((16, 16), "float32")
        T.copy(A[by * 16, 0], a)
        T.copy(B[0, bx * 16], b)
        T.gemm(a, b, c, clear_accum=True)
        T.copy(c, C[by * 16, bx * 16])
)"},
      {"SwizzleColumnThreeDimensionalGrid", R"(
@T.prim_func
def f(A: T.Tensor((2, 5, 7), "float32"), B: T.Tensor((2, 5, 7), "float32")):
    with T.Kernel(7, 5, 2) as (bx, by, bz):
        T.use_swizzle(3, order="column")
        B[bz, by, bx] = A[bz, by, bx] + T.Cast("float32", bx * 100 + by)
)"},
      {"Float8TensorsAndArithmetic", R"(
@T.prim_func
def f(A: T.Tensor((16, 16), "float8_e4m3"), B: T.Tensor((16, 16), T.float8_e5m2),
      C: T.Tensor((16, 16), "float8_e4m3fn"), D: T.Tensor((16, 16), "float32")):
    with T.Kernel(2) as bx:
        t = T.alloc_fragment((8, 16), "float8_e4m3")
        T.copy(A[bx * 8, 0], t)
        for i, j in T.Parallel(8, 16):
            C[bx * 8 + i, j] = t[i, j] * 3.0 + T.Cast("float8_e4m3", B[bx * 8 + i, j])
            D[bx * 8 + i, j] = T.Cast("float32", t[i, j]) - B[bx * 8 + i, j]
)"},
      {"LoopsWithAnnotationsGridStepUnrollVectorized", R"(
@T.prim_func
def f(A: T.Tensor((8, 8), "float32"), B: T.Tensor((8, 8), "float32")):
    with T.Kernel(1) as bx:
        for i, j in T.grid(8, 4):
            B[i, j] = A[i, j]
        for i in T.serial(0, 8, 2, annotations={"pragma_unroll_explicit": False}):
            for j in T.unroll(4, 8):
                B[i, j] = A[i, j] + 1.0
        for i in T.serial(1, 8, 2):
            for j in T.vectorized(4, 8):
                B[i, j] = A[i, j] - 1.0
)"},
      {"BitwiseOperators", R"(
@T.prim_func
def f(A: T.Tensor((16,), "int32"), U: T.Tensor((16,), "uint8"), B: T.Tensor((16,), "int32"),
      C: T.Tensor((16,), "uint8")):
    with T.Kernel(1) as bx:
        for i in T.Parallel(16):
            x = A[i]
            B[i] = ((x & 0xFF) | (x >> 3)) ^ (~x << (i % 5))
            C[i] = (U[i] >> 4) | (U[i] << 4)
        for i in T.serial(16):
            B[i] &= 0x7FFF
            B[i] <<= 1
)"},
      {"HelperFunctionsAndMacros", R"(
def tile_of(n, parts):
    if n % parts == 0:
        return n // parts
    return n // parts + 1

block = tile_of(20, 3)

@T.macro
def scale_rows(dst, src, factor):
    for i, j in T.Parallel(block, 4):
        dst[i, j] = src[i, j] * factor

@T.prim_func
def f(A: T.Tensor((21, 4), "float32"), B: T.Tensor((21, 4), "float32")):
    with T.Kernel(3) as bx:
        t = T.alloc_fragment((block, 4), "float32")
        T.copy(A[bx * block, 0], t)
        scale_rows(t, t, bx + 2)
        T.copy(t, B[bx * block, 0])
)"},
      {"MacroLocalsShadowTheCaller", R"(
@T.macro
def add_block(dst, src, offset):
    bx = T.get_block_binding(0)
    base = bx * 8 + T.get_thread_binding(1) + T.get_block_binding(2)  # unlisted axes: 0
    for i in T.Parallel(8):
        dst[base + i] = dst[base + i] + src[base + i] + offset

@T.prim_func
def f(A: T.Tensor((32,), "float32"), B: T.Tensor((32,), "float32")):
    with T.Kernel(4, threads=8) as bx:
        base = bx
        for i in T.Parallel(8):
            B[bx * 8 + i] = 0.0
        add_block(B, A, 1.0)
        add_block(B, A, base)
)"},
      {"LaunchLoopsUnrollOnTheHost", R"(
def passes(N=64):
    LOG = T.int32(2)

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        rounds = T.Cast("int32", T.ceil(T.log2(T.Cast("float32", N)))) // LOG
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                B[i] = A[i]
        for r in range(rounds):
            step = 1 << r
            with T.Kernel(T.ceildiv(N, 16), threads=16) as bx:
                for i in T.Parallel(16):
                    B[bx * 16 + i] = B[bx * 16 + i] * 2.0 + step

    return main
)"},
      {"Int8AndUint8Tensors", R"(
@T.prim_func
def f(A: T.Tensor((32,), "int8"), B: T.Tensor((32,), "uint8"), C: T.Tensor((32,), "int8"),
      D: T.Tensor((32,), "float32")):
    with T.Kernel(2) as bx:
        for i in T.Parallel(16):
            k = bx * 16 + i
            C[k] = A[k] * 3 + 7
            D[k] = T.Cast("float32", A[k]) * 0.5 + T.Cast("float32", B[k])
)"},
      {"FactoryWithDefaultsAndDefines",
       R"(
@tilelang.jit(out_idx=[-1])
def scale(M, N=16, block=(4, 8), factor=2.5, dtype="float32", flip=False):
    bm, bn = block
    grid = (T.ceildiv(M, bm), T.ceildiv(N, bn))
    sign = -1.0 if flip else 1.0

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(grid[1], grid[0], threads=32) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                B[by * bm + i, bx * bn + j] = A[by * bm + i, bx * bn + j] * factor * sign

    return main
)",
       {{"M", "12"}, {"flip", "True"}, {"dtype", "float16"}}},
      {"EagerJitWithConstAndEmpty",
       R"(
@tilelang.jit
def add(A, B, block_M=4, dtype="float32"):
    M, N = T.const("M, N")
    A: T.Tensor((M, N), dtype)
    B: T.Tensor((M, N), dtype)
    C = T.empty((M, N), dtype)
    with T.Kernel(T.ceildiv(M, block_M), threads=32) as bx:
        for i, j in T.Parallel(block_M, N):
            C[bx * block_M + i, j] = A[bx * block_M + i, j] + B[bx * block_M + i, j]
    return C
)",
       {{"M", "8"}, {"N", "6"}}},
  };
}

using Param = std::tuple<ConstructCase, testing::CpuBackend>;

class Constructs : public testing::EngineTest, public ::testing::WithParamInterface<Param> {};

TEST_P(Constructs, ParseCheckCompileAndMatchTheInterpreter) {
  const auto& [c, backend] = GetParam();
  TILEC_SKIP_UNLESS_BUILT(backend);
  ir::ParseOptions options;
  options.filename = c.name + ".py";
  options.defines = c.defines;
  std::string source = kImports + c.source;
  ir::IRModule mod = ir::parse_kernel_source(source, options);
  ASSERT_EQ(mod.functions().size(), 1u);
  ir::check_module_or_throw(mod, options.filename, source);
  Kernel kernel = compile(mod, backend.target, std::nullopt, backend.execution_backend);
  ASSERT_EQ(kernel.context().target().kind(), backend.target);
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

INSTANTIATE_TEST_SUITE_P(TileLang, Constructs,
                         ::testing::Combine(::testing::ValuesIn(cases()),
                                            ::testing::ValuesIn(testing::cpu_backends())),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::get<1>(info.param).name();
                         });

}  // namespace
}  // namespace tilec
