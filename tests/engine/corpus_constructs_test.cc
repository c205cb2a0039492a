// Constructs that blocked TileLang's own kernels in the corpus measurement
// (tools/corpus/measure.py), each in a small kernel written as those kernels write it:
// T.any_of / T.all_of over a block mask, factory string comparisons (dtype == "int8"),
// a storage scope held in a constant, constant tables indexed in a factory, tvm.te.var
// sizes, T.const names separated by spaces, and a T.Parallel row of one iteration that
// accumulates. Each is parsed, checked, compiled on every backend pair that can run here
// and compared with the reference interpreter on the same random inputs.
#include "cpu_backends.h"
#include "test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/check.h"

namespace tilec {
namespace {

struct CorpusCase {
  std::string name;
  std::string source;  // after the imports
  std::map<std::string, std::string> defines = {};
};

void PrintTo(const CorpusCase& c, std::ostream* out) {
  *out << c.name;
}

const char* kImports = "import tilelang\nimport tilelang.language as T\n\n";

std::vector<CorpusCase> cases() {
  return {
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
  };
}

using Param = std::tuple<CorpusCase, testing::CpuBackend>;

class CorpusConstructs : public testing::EngineTest, public ::testing::WithParamInterface<Param> {};

TEST_P(CorpusConstructs, ParseCheckCompileAndMatchTheInterpreter) {
  const auto& [c, backend] = GetParam();
  TILEC_SKIP_UNLESS_RUNNABLE(backend);
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

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusConstructs,
                         ::testing::Combine(::testing::ValuesIn(cases()),
                                            ::testing::ValuesIn(testing::runnable_backends())),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::get<1>(info.param).name();
                         });

}  // namespace
}  // namespace tilec
