// The eager @tilelang.jit style (issue 11) as TileLang users write it: the decorated
// function takes its tensors as arguments with shapes from T.const / T.dynamic, may take
// runtime scalars (`n: T.int32`) and compile-time options (`block: int = 8`), and
// allocates its outputs with T.empty. Each kernel runs twice on every CPU backend pair
// against the interpreter: specialised (-D gives every T.const) and symbolic (the
// dimensions stay variables, their values given at the call).
#include "expect_source_error.h"
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/check.h"
#include "tilec/ir/param_default.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/structural.h"

namespace tilec {
namespace {

struct EagerCase {
  std::string name;
  std::string source;                          // after the imports
  std::map<std::string, std::string> defines;  // the specialised run
  std::map<std::string, int64_t> values;       // the symbolic run (and runtime scalars)
  size_t params;                               // kernel parameters when symbolic
};

void PrintTo(const EagerCase& c, std::ostream* out) {
  *out << c.name;
}

const char* kImports = "import tilelang\nimport tilelang.language as T\n\n";

std::vector<EagerCase> cases() {
  return {
      {"GemmSubscriptTensors",
       R"(
@tilelang.jit
def gemm(A, B, block_M: int = 8, block_N: int = 8, block_K: int = 4,
         in_dtype: T.dtype = T.float32, accum_dtype: T.dtype = T.float32, threads=32):
    M, N, K = T.const("M, N, K")
    A: T.Tensor[[M, K], in_dtype]
    B: T.Tensor[[K, N], in_dtype]
    C = T.empty((M, N), accum_dtype)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), in_dtype)
        B_shared = T.alloc_shared((block_K, block_N), in_dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
            T.copy(A[by * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * block_M, bx * block_N])
    return C
)",
       {{"M", "16"}, {"N", "16"}, {"K", "8"}},
       {{"M", 16}, {"N", 16}, {"K", 8}},
       3},
      {"DynamicTokensConstHidden",
       R"(
@tilelang.jit(out_idx=[-1])
def scale_rows(X, W, scale: float = 2.0, block: int = 4, dtype: T.dtype = T.float32):
    num_tokens = T.dynamic('num_tokens')
    hidden = T.const('hidden')
    X: T.Tensor[(num_tokens, hidden), dtype]
    W: T.Tensor[hidden, dtype]
    Y = T.empty((num_tokens, hidden), dtype)
    with T.Kernel(T.ceildiv(num_tokens, block), threads=32) as pid:
        for i, j in T.Parallel(block, hidden):
            row = pid * block + i
            if row < num_tokens:
                Y[row, j] = X[row, j] * W[j] * scale
    return Y
)",
       {{"hidden", "12"}, {"num_tokens", "10"}},
       {{"hidden", 12}, {"num_tokens", 10}},
       3},
      {"OutputArgumentNoReturn",
       R"(
@tilelang.jit()
def rowmax(A, Out):
    N = T.const("N")
    B = T.dynamic("B")
    A: T.Tensor[[B, N], T.float32]
    Out: T.Tensor[[B], T.float32]
    with T.Kernel(B) as b:
        tmp = T.alloc_fragment((N,), T.float32)
        tmp_max = T.alloc_fragment(1, T.float32)
        T.copy(A[b, :], tmp)
        T.reduce_max(tmp, tmp_max, dim=0)
        Out[b] = tmp_max[0]
)",
       {{"N", "12"}, {"B", "5"}},
       {{"N", 12}, {"B", 5}},
       2},
      {"RuntimeScalarArguments",
       R"(
@tilelang.jit
def axpy(X, Y, n_valid: T.int32, alpha: T.float32 = 1.5, block: int = 8):
    N = T.const("N")
    X: T.Tensor((N,), "float32")
    Y: T.Tensor((N,), "float32")
    Out = T.empty((N,), "float32")
    with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
        for i in T.Parallel(block):
            idx = bx * block + i
            if idx < N:
                if idx < n_valid:
                    Out[idx] = alpha * X[idx] + Y[idx]
                else:
                    Out[idx] = Y[idx]
    return Out
)",
       {{"N", "20"}, {"n_valid", "13"}, {"alpha", "0.5"}},
       {{"N", 20}, {"n_valid", 13}},
       5},
      {"DerivedConstantsAndFlags",
       R"(
@tilelang.jit
def headnorm(Q, Out, eps: float = 1e-6, use_bias: bool = False, threads=32):
    B, H, D = T.const("B, H, D")
    scale = T.rsqrt(T.cast(D, "float32"))
    Q: T.Tensor[(B, H, D), "float32"]
    Out: T.Tensor[(B, H), "float32"]
    with T.Kernel(B * H, threads=threads) as bbh:
        bb, bh = bbh // H, bbh % H
        acc = T.alloc_fragment((1,), "float32")
        acc[0] = 0.0
        for d in T.serial(D):
            acc[0] += Q[bb, bh, d] * Q[bb, bh, d]
        if use_bias:
            acc[0] += 1.0
        Out[bb, bh] = acc[0] * scale + eps
)",
       {{"B", "2"}, {"H", "3"}, {"D", "8"}, {"use_bias", "True"}},
       {{"B", 2}, {"H", 3}, {"D", 8}},
       2},
      // TileLang's copy tests: the jit body only declares the tensors and calls a macro
      // that reads their shapes, asserts they agree and launches the kernel.
      {"MacroHoldsTheKernel",
       R"(
@T.macro
def scale_impl(A, B, factor):
    M, N = A.shape
    M_, N_ = B.shape
    assert M == M_, f"M mismatch {M} {M_}"
    assert N == N_, f"N mismatch {N} {N_}"
    with T.Kernel(T.ceildiv(M, 4), T.ceildiv(N, 8), threads=32) as (bx, by):
        for i, j in T.Parallel(4, 8):
            if bx * 4 + i < M and by * 8 + j < N:
                B[bx * 4 + i, by * 8 + j] = A[bx * 4 + i, by * 8 + j] * factor

@tilelang.jit
def scale(A, B):
    N, M = T.const("N, M")
    A: T.Tensor[[N, M], T.float32]
    B: T.Tensor[[N, M], T.float32]
    scale_impl(A, B, 3.0)
)",
       {{"N", "10"}, {"M", "12"}},
       {{"N", 10}, {"M", 12}},
       2},
      // The macro allocates the output (T.empty with the sizes as separate arguments and
      // the input's dtype) and the jit function returns what the macro returns.
      {"MacroReturnsItsOutput",
       R"(
@T.macro
def negate_impl(A):
    M, N = A.shape
    B = T.empty(M, N, dtype=A.dtype)
    with T.Kernel(T.ceildiv(M, 8), threads=32) as bx:
        for i, j in T.Parallel(8, N):
            if bx * 8 + i < M:
                B[bx * 8 + i, j] = -A[bx * 8 + i, j]
    return B

@tilelang.jit
def negate(A):
    M, N = T.const("M, N")
    A: T.Tensor[[M, N], T.float32]
    return negate_impl(A)
)",
       {{"M", "12"}, {"N", "6"}},
       {{"M", 12}, {"N", 6}},
       2},
      // A tensor annotated in the signature (fixed shape) next to one annotated in the
      // body (shape from T.const).
      {"SignatureAnnotatedTensor",
       R"(
@tilelang.jit
def add_bias(Bias: T.Tensor((8,), T.float32), X):
    N = T.const("N")
    X: T.Tensor[[N, 8], T.float32]
    Y = T.empty((N, 8), T.float32)
    with T.Kernel(N, threads=8) as row:
        for j in T.Parallel(8):
            Y[row, j] = X[row, j] + Bias[j]
    return Y
)",
       {{"N", "5"}},
       {{"N", 5}},
       3},
      // An if on a flag and a size check before the kernel: only the taken branch (the
      // float32 output, a float16 one otherwise) is lowered; the raise is not reached.
      {"ConstantBranchesBeforeTheKernel",
       R"(
@tilelang.jit
def widen(X, wide: bool = True, block: int = 4):
    N = T.const("N")
    X: T.Tensor[[N], T.float16]
    if block > 64:
        raise ValueError("block too large")
    if wide:
        Y = T.empty((N,), T.float32)
    else:
        Y = T.empty((N,), T.float16)
    with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
        for i in T.Parallel(block):
            if bx * block + i < N:
                Y[bx * block + i] = X[bx * block + i] * 3
    return Y
)",
       {{"N", "10"}},
       {{"N", 10}},
       2},
  };
}

ir::IRModule parse(const EagerCase& c, const std::map<std::string, std::string>& defines) {
  ir::ParseOptions options;
  options.filename = c.name + ".py";
  options.defines = defines;
  std::string source = kImports + c.source;
  ir::IRModule mod = ir::parse_kernel_source(source, options);
  ir::check_module_or_throw(mod, options.filename, source);
  return mod;
}

using Param = std::tuple<EagerCase, testing::CpuBackend>;

class EagerJit : public testing::EngineTest, public ::testing::WithParamInterface<Param> {};

TEST_P(EagerJit, SpecialisedWithDefinesMatchesTheInterpreter) {
  const auto& [c, backend] = GetParam();
  TILEC_SKIP_UNLESS_BUILT(backend);
  ir::IRModule mod = parse(c, c.defines);
  ASSERT_EQ(mod.functions().size(), 1u);
  // -D fixes every dimension and runtime scalar it names: none is left symbolic.
  EXPECT_TRUE(ir::symbolic_shape_vars(mod.functions()[0]).empty());
  Kernel kernel = compile(mod, backend.target, std::nullopt, backend.execution_backend);
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

TEST_P(EagerJit, SymbolicMatchesTheInterpreter) {
  const auto& [c, backend] = GetParam();
  TILEC_SKIP_UNLESS_BUILT(backend);
  ir::IRModule mod = parse(c, {});
  ASSERT_EQ(mod.functions().size(), 1u);
  EXPECT_EQ(mod.functions()[0]->params.size(), c.params);
  EXPECT_FALSE(ir::symbolic_shape_vars(mod.functions()[0]).empty());
  Kernel kernel = compile(mod, backend.target, std::nullopt, backend.execution_backend);
  auto result = testing::run_and_compare(kernel, mod.functions()[0], c.values);
  EXPECT_TRUE(result.ok) << result.detail;
}

INSTANTIATE_TEST_SUITE_P(TileLang, EagerJit,
                         ::testing::Combine(::testing::ValuesIn(cases()),
                                            ::testing::ValuesIn(testing::cpu_backends())),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::get<1>(info.param).name();
                         });

// The lowered eager function prints as a @T.prim_func that parses back to the same IR
// (runtime scalars keep their defaults).
TEST(EagerJitFrontEnd, PrintedFunctionRoundTrips) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    ir::IRModule mod = parse(c, {});
    std::string text = ir::print(mod);
    ir::ParseOptions options;
    options.filename = "printed.py";
    ir::IRModule again = ir::parse_kernel_source(text, options);
    EXPECT_TRUE(ir::structural_equal(mod, again)) << text;
  }
}

TEST(EagerJitFrontEnd, RuntimeScalarKeepsItsDefaultAndDtype) {
  ir::IRModule mod = parse(cases()[3], {});
  const auto& params = mod.functions()[0]->params;
  ASSERT_EQ(params.size(), 5u);  // X, Y, n_valid, alpha, then the T.empty output
  EXPECT_EQ(params[2].name(), "n_valid");
  EXPECT_TRUE(params[2].var.dtype().is_int());
  EXPECT_EQ(params[3].name(), "alpha");
  EXPECT_TRUE(params[3].var.dtype().is_float());
  EXPECT_TRUE(params[4].is_buffer());
  auto d = ir::param_default(*mod.functions()[0].get(), "alpha");
  ASSERT_TRUE(d.has_value());
  EXPECT_DOUBLE_EQ(std::get<double>(*d), 1.5);
  EXPECT_FALSE(ir::param_default(*mod.functions()[0].get(), "n_valid").has_value());
}

TEST(EagerJitFrontEnd, DefineFixesARuntimeScalar) {
  ir::IRModule mod = parse(cases()[3], {{"N", "20"}, {"n_valid", "13"}});
  const auto& params = mod.functions()[0]->params;
  ASSERT_EQ(params.size(), 4u);  // n_valid is now the constant 13
  for (const auto& p : params) EXPECT_NE(p.name(), "n_valid");
}

void expect_error(const std::string& source, const std::map<std::string, std::string>& defines,
                  const std::string& message, const std::string& hint) {
  testing::expect_source_error(kImports + source, defines, message, hint);
}

TEST(EagerJitFrontEnd, ErrorsNameTheProblemAndTheFix) {
  // A computed dimension is not a tensor parameter's shape in TileLang either.
  expect_error(R"(
@tilelang.jit
def f(X):
    N, D = T.const("N, D")
    X: T.Tensor((N * D,), "float32")
    with T.Kernel(1) as bx:
        X[0] = 1.0
)",
               {}, "not an expression of symbolic names", "T.const(\"ND\")");
  expect_error(R"(
@tilelang.jit
def f(X, n: T.int32 = 0.5):
    N = T.const("N")
    X: T.Tensor((N,), "float32")
    with T.Kernel(1) as bx:
        X[0] = 1.0
)",
               {}, "the default of 'n: T.int32' must be an int32 constant", "n: T.int32 = 4");
  expect_error(R"(
@tilelang.jit
def f(X, alpha: T.float32):
    N = T.const("N")
    X: T.Tensor((N,), "float32")
    with T.Kernel(1) as bx:
        X[0] = alpha
)",
               {{"alpha", "big"}}, "'alpha' is a float constant", "-D alpha=VALUE");
}

// What a macro called from the jit body may not do, located at the macro's statement.
TEST(EagerJitFrontEnd, MacroErrorsNameTheMacroAndTheFix) {
  const std::string source = R"(
@T.macro
def copy_impl(A, B):
    M, N = A.shape
    M_, N_ = B.shape
    assert M == M_, f"M mismatch {M} {M_}"
    with T.Kernel(1) as bx:
        B[0, 0] = A[0, 0]

@tilelang.jit
def copy(A, B):
    M, N, K = T.const("M, N, K")
    A: T.Tensor[[M, N], T.float32]
    B: T.Tensor[[K, N], T.float32]
    copy_impl(A, B)
)";
  // Different symbolic sizes are different expressions: as in TileLang, M == K is false.
  expect_error(source, {}, "assertion failed in 'copy_impl' for these parameters", "-D values");
  expect_error(source, {{"M", "4"}, {"N", "4"}, {"K", "8"}},
               "assertion failed in 'copy_impl' for these parameters", "-D values");
  expect_error(R"(
@T.macro
def fill(A):
    for i in range(4):
        A[i] = 0.0

@tilelang.jit
def f(A):
    N = T.const("N")
    A: T.Tensor[[N], T.float32]
    fill(A)
)",
               {}, "unsupported statement in the @tilelang.jit function 'f'",
               "@T.macro functions that hold them");
  // Outside an assert's message an f-string is still rejected.
  expect_error(R"(
@tilelang.jit
def f(A):
    N = T.const("N")
    A: T.Tensor[[N], T.float32]
    with T.Kernel(1) as bx:
        T.print(A[0], msg=f"{N}")
)",
               {}, "f-string", "plain string literal");
}

}  // namespace
}  // namespace tilec
