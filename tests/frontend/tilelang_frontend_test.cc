// The front end on what TileLang users write (issue 11): factories and both
// @tilelang.jit styles with -D parameters, defaults and --entry; the IR each new
// construct lowers to; and the located errors for what tilec cannot run (Hopper-only
// constructs, thread bindings, functions without a T.Kernel, missing parameters).
#include "tilec/frontend/parser.h"
#include "tilec/ir/param_default.h"
#include "tilec/ir/printer.h"

#include "tilec/target/nearest_name.h"
#include "tilec/target/target_kind.h"

#include <gtest/gtest.h>

namespace tilec::ir {
namespace {

const char* kHeader = "import tilelang\nimport tilelang.language as T\n";

IRModule parse(const std::string& body, std::map<std::string, std::string> defines = {},
               std::string entry = "") {
  ParseOptions options;
  options.filename = "k.py";
  options.defines = std::move(defines);
  return parse_kernel_source(std::string(kHeader) + body, options, entry);
}

// The SourceError of parsing `body`; fails the test when it parses.
SourceError error_of(const std::string& body, std::map<std::string, std::string> defines = {},
                     std::string entry = "") {
  try {
    parse(body, std::move(defines), std::move(entry));
  } catch (const SourceError& e) {
    return e;
  }
  ADD_FAILURE() << "parsed without error:\n" << body;
  return SourceError("", {}, "none", "", "");
}

const std::string kFactory = R"(
@tilelang.jit(out_idx=[-1])
def matmul(M, N, K=32, block_M=16, dtype="float16"):
    grid = T.ceildiv(M, block_M)

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(grid, threads=128) as bx:
            T.copy(A[bx * block_M, 0], C[bx * block_M, 0])

    return main
)";

const std::string kAdd = R"(
@T.prim_func
def add(A: T.Tensor((4,), "float32")):
    with T.Kernel(1) as bx:
        A[0] = 1.0
)";

TEST(Factories, ParametersComeFromDefinesElseDefaults) {
  IRModule m = parse(kFactory, {{"M", "64"}, {"N", "48"}, {"dtype", "float32"}});
  ASSERT_EQ(m.functions().size(), 1u);
  const PrimFunc& f = m.functions()[0];
  EXPECT_EQ(f->name, "matmul");  // named after the factory
  ASSERT_EQ(f->params.size(), 3u);
  const Buffer& a = f->params[0].buffer;
  EXPECT_EQ(a->dtype, DataType::Float32());
  EXPECT_TRUE(is_const_int(a->shape[0], 64));
  EXPECT_TRUE(is_const_int(a->shape[1], 32));  // K's default
  auto* kernel = f->body.as<KernelNode>();
  ASSERT_NE(kernel, nullptr);
  EXPECT_TRUE(is_const_int(kernel->grid[0], 4));  // ceildiv(64, 16)
}

TEST(Factories, AMissingParameterIsNamed) {
  SourceError e = error_of(kFactory, {{"M", "64"}});
  EXPECT_NE(std::string(e.what()).find("factory 'matmul' needs a value for parameter 'N'"),
            std::string::npos)
      << e.what();
  EXPECT_NE(e.hint().find("-D N=VALUE"), std::string::npos) << e.hint();
}

TEST(Factories, EntryPicksOneOfSeveralAndAmbiguityListsThem) {
  std::string both = kFactory + kAdd;
  SourceError e = error_of(both, {{"M", "64"}, {"N", "48"}});
  EXPECT_NE(std::string(e.what()).find("pick one with --entry NAME"), std::string::npos);
  EXPECT_NE(e.hint().find("matmul (factory), add"), std::string::npos) << e.hint();
  IRModule only_add = parse(both, {}, "add");
  ASSERT_EQ(only_add.functions().size(), 1u);
  EXPECT_EQ(only_add.functions()[0]->name, "add");
  IRModule only_mm = parse(both, {{"M", "64"}, {"N", "48"}}, "matmul");
  EXPECT_EQ(only_mm.functions()[0]->name, "matmul");
  SourceError unknown = error_of(both, {}, "gemm");
  EXPECT_NE(std::string(unknown.what()).find("--entry gemm"), std::string::npos);
  EXPECT_NE(unknown.hint().find("matmul (factory), add"), std::string::npos);
}

TEST(Factories, ConstantEvaluatorHandlesTuplesConditionalsAndHelpers) {
  IRModule m = parse(R"(
def pick(n, big):
    if n > big:
        return big
    return n

@tilelang.jit
def f(N=100, blocks=(16, 32), fast=True):
    bm, bn = blocks
    block = pick(N, bn) if fast else min(N, bm)
    extent = max(N // block, 1) % 7 + (1 << 2)

    @T.prim_func
    def main(A: T.Tensor((N, block), "float32")):
        with T.Kernel(extent) as bx:
            A[0, 0] = 1.0

    return main
)");
  const PrimFunc& f = m.functions()[0];
  EXPECT_TRUE(is_const_int(f->params[0].buffer->shape[1], 32));
  EXPECT_TRUE(is_const_int(f->body.as<KernelNode>()->grid[0], 3 % 7 + 4));
}

TEST(Factories, OrAndGiveTheDecidingOperandAndEllipsisAnnotationsParse) {
  // `out_dtype = out_dtype or in_dtype` and a helper called in an if's condition
  // (TileLang's cumsum example), a return annotation Callable[..., Any], and T.gemm_v2
  // (TileLang's second gemm implementation).
  std::string src = R"(
from typing import Any, Callable, Optional

def _is_power_of_two(n: int):
    """Check if n is a power of 2."""
    return n > 0 and (n & (n - 1)) == 0

def f(N=8, in_dtype="float16", out_dtype: Optional[str] = None, tile=0) -> Callable[..., Any]:
    if not _is_power_of_two(N) or not _is_power_of_two(T.int32(N)):
        raise ValueError("N must be a power of 2")
    out_dtype = out_dtype or in_dtype
    block = tile or 4
    both = tile and 16
    rows = (None or ()) or (N, 2)

    @T.prim_func
    def main(A: T.Tensor((N, N), in_dtype), C: T.Tensor(rows, out_dtype)):
        with T.Kernel(1, threads=32) as bx:
            S = T.alloc_shared((block, N), in_dtype)
            F = T.alloc_fragment((block, block), "float32")
            G = T.alloc_fragment((block + both,), "float32")
            T.copy(A[0, 0], S)
            T.gemm_v2(S, S, F, transpose_B=True, clear_accum=True)
            T.clear(G)

    return main
)";
  PrimFunc f = parse(src).functions()[0];
  EXPECT_EQ(f->params[1].buffer->dtype, DataType::Float16());  // in_dtype
  EXPECT_TRUE(is_const_int(f->params[1].buffer->shape[1], 2));
  EXPECT_EQ(parse(src, {{"out_dtype", "float32"}}).functions()[0]->params[1].buffer->dtype,
            DataType::Float32());
  std::string printed = print(parse(src, {{"tile", "2"}}).functions()[0]);
  EXPECT_NE(printed.find("T.gemm("), std::string::npos) << printed;
  EXPECT_NE(printed.find("(18,)"), std::string::npos) << printed;  // tile=2: 2 + (2 and 16)
  std::string odd = error_of(src, {{"N", "6"}}).what();
  EXPECT_NE(odd.find("raised ValueError (\"N must be a power of 2\")"), std::string::npos) << odd;
}

TEST(Factories, LaunchLoopsUnrollWithConstantTripCounts) {
  // TileLang's multi-pass cumsum launches a kernel per round from a host-side loop; the
  // round count folds from T.log2 / T.ceil / T.Cast of constants.
  std::string src = R"(
def f(N=64, rounds_from=0):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), n: T.int32):
        rounds = T.Cast("int32", T.ceil(T.log2(T.Cast("float32", N)))) - rounds_from
        for r in range(rounds_from, rounds):
            with T.Kernel(1, threads=32) as bx:
                A[r] = A[r] + 1.0
    return main
)";
  PrimFunc f = parse(src).functions()[0];
  auto* seq = f->body.as<SeqNode>();
  ASSERT_NE(seq, nullptr) << print(f);
  EXPECT_EQ(seq->stmts.size(), 6u) << print(f);  // log2(64) = 6 launches
  std::string symbolic = error_of(R"(
@T.prim_func
def g(A: T.Tensor((8,), "float32"), n: T.int32):
    for r in range(n):
        with T.Kernel(1, threads=32) as bx:
            A[r] = 1.0
)")
                             .what();
  EXPECT_NE(symbolic.find("the trip count of a loop around T.Kernel launches must be a constant"),
            std::string::npos)
      << symbolic;
  std::string parallel = error_of(R"(
@T.prim_func
def g(A: T.Tensor((8,), "float32")):
    for r in T.Parallel(2):
        with T.Kernel(1, threads=32) as bx:
            A[r] = 1.0
)")
                             .what();
  EXPECT_NE(parallel.find("must be range(...) or T.serial(...)"), std::string::npos) << parallel;
}

TEST(Factories, EagerJitParamsAreTensorsThenEmptyOutputs) {
  std::string src = R"(
@tilelang.jit
def scale(X, factor=2.0, block=8):
    M, N = T.const("M, N")
    X: T.Tensor((M, N), "float32")
    Y = T.empty((M, N), "float32")
    with T.Kernel(T.ceildiv(M, block)) as bx:
        for i, j in T.Parallel(block, N):
            Y[bx * block + i, j] = X[bx * block + i, j] * factor
    return Y
)";
  IRModule symbolic = parse(src);
  const PrimFunc& f = symbolic.functions()[0];
  ASSERT_EQ(f->params.size(), 2u);
  EXPECT_EQ(f->params[0].buffer->name, "X");
  EXPECT_EQ(f->params[1].buffer->name, "Y");
  EXPECT_EQ(symbolic_shape_vars(f).size(), 2u);  // M, N from T.const
  IRModule fixed = parse(src, {{"M", "16"}, {"N", "4"}});
  EXPECT_TRUE(is_const_int(fixed.functions()[0]->params[1].buffer->shape[0], 16));
}

TEST(Factories, EagerJitBodiesBranchOnConstantsOnly) {
  // An eager body's `if` on a flag or size picks its branch at parse time, as a
  // factory's does (the output's dtype here); a raise it reaches is the located error,
  // and a condition on a symbolic size is refused.
  std::string src = R"(
@tilelang.jit
def scale(X, wide=False, block=8):
    N = T.const("N")
    X: T.Tensor((N,), "float16")
    if block > 64:
        raise ValueError("block too large")
    if wide:
        Y = T.empty((N,), "float32")
    else:
        Y = T.empty((N,), "float16")
    with T.Kernel(T.ceildiv(N, block)) as bx:
        for i in T.Parallel(block):
            Y[bx * block + i] = X[bx * block + i]
    return Y
)";
  IRModule narrow = parse(src, {{"N", "16"}});
  ASSERT_EQ(narrow.functions()[0]->params.size(), 2u);
  EXPECT_EQ(narrow.functions()[0]->params[1].buffer->dtype, DataType::Float16());
  IRModule wide = parse(src, {{"N", "16"}, {"wide", "True"}});
  EXPECT_EQ(wide.functions()[0]->params[1].buffer->dtype, DataType::Float32());
  std::string raised = error_of(src, {{"N", "16"}, {"block", "128"}}).what();
  EXPECT_NE(raised.find("'scale' raised ValueError (\"block too large\")"), std::string::npos)
      << raised;
  std::string symbolic = src;
  symbolic.replace(symbolic.find("if wide:"), 8, "if N > 8:");
  std::string run_time = error_of(symbolic).what();
  EXPECT_NE(run_time.find("must be a constant"), std::string::npos) << run_time;
}

TEST(Factories, ConstNamesMaySeparateWithSpaces) {
  // TileLang splits T.const("M N K") on whitespace as well as commas.
  std::string src = R"(
@tilelang.jit
def copy(A, B):
    M, N, K = T.const("M N K")
    A: T.Tensor((M, N, K), "float32")
    B: T.Tensor((M, N, K), "float32")
    with T.Kernel(1) as bx:
        for i, j, k in T.Parallel(M, N, K):
            B[i, j, k] = A[i, j, k]
)";
  EXPECT_EQ(symbolic_shape_vars(parse(src).functions()[0]).size(), 3u);
  IRModule fixed = parse(src, {{"M", "4"}, {"N", "2"}, {"K", "3"}});
  EXPECT_TRUE(is_const_int(fixed.functions()[0]->params[0].buffer->shape[2], 3));
}

TEST(Factories, StringComparisonsAreDecidedLikePython) {
  // `dtype == "int8"` in a factory and in the kernel body is a constant, as in Python; a
  // T.float16-style dtype equals the string naming the same type.
  std::string src = R"(
def f(N=8, in_dtype="float16", accum_dtype="float32"):
    wide = in_dtype == "float16" and accum_dtype != "float16" and in_dtype in ["float16", "x"]
    cols = 4 if in_dtype == T.float16 else 2

    @T.prim_func
    def main(A: T.Tensor((N, cols), in_dtype), B: T.Tensor((N, cols), accum_dtype)):
        with T.Kernel(1) as bx:
            for i, j in T.Parallel(N, cols):
                if wide:
                    B[i, j] = A[i, j] * 2
                elif in_dtype == "int8":
                    B[i, j] = A[i, j] * 3
                else:
                    B[i, j] = A[i, j]

    return main
)";
  IRModule m = parse(src);
  const PrimFunc& f = m.functions()[0];
  EXPECT_TRUE(is_const_int(f->params[0].buffer->shape[1], 4));
  std::string text = print(f);  // the comparisons are constants: one branch is kept
  EXPECT_NE(text.find("* 2"), std::string::npos) << text;
  EXPECT_EQ(text.find("* 3"), std::string::npos) << text;
  IRModule mg = parse(src, {{"in_dtype", "int8"}, {"accum_dtype", "int32"}});
  const PrimFunc& g = mg.functions()[0];
  EXPECT_TRUE(is_const_int(g->params[0].buffer->shape[1], 2));
  std::string gtext = print(g);
  EXPECT_NE(gtext.find("* 3"), std::string::npos) << gtext;
  EXPECT_EQ(gtext.find("* 2"), std::string::npos) << gtext;
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = src;
    return s.replace(s.find(from), from.size(), to);
  };
  std::string ordered =
      error_of(replaced("in_dtype == \"float16\" and", "in_dtype < \"x\" and")).what();
  EXPECT_NE(ordered.find("only be compared with == and !="), std::string::npos) << ordered;
  std::string mixed = error_of(replaced("accum_dtype != \"float16\"", "accum_dtype != N")).what();
  EXPECT_NE(mixed.find("not a string"), std::string::npos) << mixed;
}

TEST(Factories, ARaiseReachedWithTheseParametersIsALocatedError) {
  // Factories reject parameters they do not support with `raise`; only a raise the
  // parameters reach is an error, and it names the exception and its message.
  std::string src = R"(
class Unsupported(Exception):
    pass

def f(N=64, dtype="float32", block=16):
    if dtype not in ("float32", "float16"):
        raise ValueError(f"unsupported dtype {dtype}")
    elif N % block != 0:
        raise NotImplementedError("N must be a multiple of block") from None
    if block > 64:
        raise

    @T.prim_func
    def main(A: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block)) as bx:
            for i in T.Parallel(block):
                A[bx * block + i] = 1.0

    return main
)";
  IRModule m = parse(src);
  EXPECT_TRUE(is_const_int(m.functions()[0]->params[0].buffer->shape[0], 64));
  SourceError divisible = error_of(src, {{"N", "100"}});
  EXPECT_NE(std::string(divisible.what())
                .find("'f' raised NotImplementedError (\"N must be a multiple of block\")"),
            std::string::npos)
      << divisible.what();
  EXPECT_EQ(divisible.span().line, 11) << divisible.what();
  std::string dtype = error_of(src, {{"dtype", "int8"}}).what();
  EXPECT_NE(dtype.find("raised ValueError"), std::string::npos) << dtype;
  std::string bare = error_of(src, {{"block", "128"}, {"N", "128"}}).what();
  EXPECT_NE(bare.find("raised an exception"), std::string::npos) << bare;

  std::string in_kernel = error_of(R"(
@T.prim_func
def g(A: T.Tensor((4,), "float32")):
    with T.Kernel(1) as bx:
        raise ValueError("no")
)")
                              .what();
  EXPECT_NE(in_kernel.find("'raise' is not allowed inside a kernel"), std::string::npos)
      << in_kernel;
}

TEST(Constructs, ConstantIfLowersOnlyTheTakenBranch) {
  // `if window_size is not None:` with window_size None: the branch that uses it is not
  // lowered (it would be an error: None is not a value), as in Python.
  std::string src = R"(
def f(N=8, window_size=None):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(N):
                if window_size is not None:
                    A[i] = A[i] + window_size
                else:
                    A[i] = A[i] * 2.0

    return main
)";
  std::string text = print(parse(src).functions()[0]);
  EXPECT_NE(text.find("*= 2"), std::string::npos) << text;
  EXPECT_EQ(text.find("if "), std::string::npos) << text;
  std::string windowed = print(parse(src, {{"window_size", "3"}}).functions()[0]);
  EXPECT_NE(windowed.find("+= 3"), std::string::npos) << windowed;
  // A condition known only at run time keeps both branches.
  std::string runtime = print(parse(R"(
@T.prim_func
def g(A: T.Tensor((8,), "float32")):
    with T.Kernel(1) as bx:
        for i in T.Parallel(8):
            if A[i] > 0.0:
                A[i] = 1.0
            else:
                A[i] = 2.0
)")
                                  .functions()[0]);
  EXPECT_NE(runtime.find("else:"), std::string::npos) << runtime;
}

TEST(Constructs, AnyOfAllOfNeedConstantRegions) {
  // T.any_of over a block-mask row lowers to the or of its loads; a region whose extent
  // is not a constant is a located error that says what to write.
  IRModule m = parse(R"(
@T.prim_func
def f(Mask: T.Tensor((4, 3), "bool"), B: T.Tensor((4,), "int32")):
    with T.Kernel(4) as bx:
        if T.any_of(Mask[bx, :]):
            B[bx] = 1
)");
  std::string text = print(m.functions()[0]);
  EXPECT_NE(text.find("Mask[bx, 2]"), std::string::npos) << text;
  std::string bad = error_of(R"(
@T.prim_func
def f(Mask: T.Tensor((4, 3), "bool"), B: T.Tensor((4,), "int32"), n: T.int32):
    with T.Kernel(4) as bx:
        if T.all_of(Mask[bx, 0:n]):
            B[bx] = 1
)")
                        .what();
  EXPECT_NE(bad.find("T.all_of needs a region of constant, positive extents"), std::string::npos)
      << bad;
}

TEST(Constructs, ScopeMayBeAConstantButMustBeAString) {
  std::string src = R"(
def f(N=8):
    scope = "shared"

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            s = T.alloc_shared((N,), "float32", scope=scope)
            T.copy(A, s)
            T.copy(s, A)

    return main
)";
  EXPECT_EQ(parse(src).functions().size(), 1u);
  std::string s2 = src;
  s2.replace(s2.find("scope = \"shared\""), 16, "scope = 3");
  std::string e = error_of(s2).what();
  EXPECT_NE(e.find("a storage scope is a string"), std::string::npos) << e;
}

TEST(Constructs, TargetLanguageNamespacesAndTvmTeVar) {
  // `from tilelang.cuda import language as T` is TileLang's language module; tvm.te.var
  // (TileLang's TVM, `from tilelang import tvm`) is a symbolic size, fixed by -D.
  ParseOptions options;
  options.filename = "k.py";
  std::string src = R"(import tilelang
from tilelang import tvm
from tilelang.cuda import language as T


def f(block=4):
    M = tvm.te.var("m")

    @T.prim_func
    def main(A: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block)) as bx:
            for i in T.Parallel(block):
                A[bx * block + i] = 1.0

    return main
)";
  IRModule symbolic = parse_kernel_source(src, options);
  EXPECT_EQ(symbolic_shape_vars(symbolic.functions()[0]).size(), 1u);
  options.defines = {{"m", "12"}};
  IRModule fixed = parse_kernel_source(src, options);
  EXPECT_TRUE(is_const_int(fixed.functions()[0]->params[0].buffer->shape[0], 12));
}

TEST(Factories, JitOutIdxAndEmptyOutputsAreRecordedAsDeclaredOutputs) {
  IRModule factory = parse(kFactory, {{"M", "64"}, {"N", "48"}});
  EXPECT_EQ(output_indices(factory.functions()[0]), std::vector<size_t>{2});  // out_idx=[-1]
  IRModule eager = parse(R"(
@tilelang.jit
def scale(X):
    M, N = T.const("M, N")
    X: T.Tensor((M, N), "float32")
    Y = T.empty((M, N), "float32")
    with T.Kernel(1) as bx:
        for i, j in T.Parallel(M, N):
            Y[i, j] = X[i, j]
    return Y
)");
  EXPECT_EQ(output_indices(eager.functions()[0]), std::vector<size_t>{1});  // the T.empty
  EXPECT_TRUE(output_indices(parse(kAdd).functions()[0]).empty());
  std::string bad = kFactory;
  bad.replace(bad.find("out_idx=[-1]"), 12, "out_idx=[0, 5]");
  SourceError e = error_of(bad, {{"M", "64"}, {"N", "48"}});
  EXPECT_NE(std::string(e.what()).find("out_idx 5 names no tensor parameter"), std::string::npos)
      << e.what();
}

// TileLang's autotuned examples nest the factory: the outer one takes the problem,
// an inner `kernel_func(block_M, ...)` defines the kernel, and the outer returns its
// call, a wrapper calling it (under @autotune/@jit, block sizes defaulting to None for
// the tuner), or the wrapper itself uncalled for its caller to pass the block sizes.
const std::string kNestedFactory = R"(
from tilelang.autotuner import autotune

def flash(seq_len, dim=16, tune=False, direct=False):
    scale = (1.0 / dim) ** 0.5

    def kernel_func(block_M, block_N, threads=128):
        grid = T.ceildiv(seq_len, block_M)

        @T.prim_func
        def main(Q: T.Tensor((seq_len, dim), "float32"), O: T.Tensor((seq_len, dim), "float32")):
            with T.Kernel(grid, threads=threads) as bx:
                for i, j in T.Parallel(block_M, dim):
                    O[bx * block_M + i, j] = Q[bx * block_M + i, j] * scale

        return main

    if direct:
        return kernel_func(32, 16, threads=64)
    if tune:
        @autotune(configs=[], warmup=10, rep=10)
        @tilelang.jit(out_idx=[1])
        def kernel(block_M=None, block_N=None, threads=None):
            return kernel_func(block_M, block_N, threads)

        return kernel()
    else:
        def kernel(block_M, block_N, threads):
            return kernel_func(block_M, block_N, threads)

        return kernel
)";

TEST(Factories, NestedFactoriesTakeCallArgumentsThenDefines) {
  IRModule direct = parse(kNestedFactory, {{"seq_len", "128"}, {"direct", "True"}});
  const PrimFunc& d = direct.functions()[0];
  EXPECT_EQ(d->name, "flash");                                      // named after the entry factory
  EXPECT_TRUE(is_const_int(d->body.as<KernelNode>()->grid[0], 4));  // ceildiv(128, 32)
  EXPECT_TRUE(output_indices(d).empty());

  // `return kernel`: the caller's block sizes come from -D.
  IRModule returned =
      parse(kNestedFactory,
            {{"seq_len", "128"}, {"block_M", "64"}, {"block_N", "32"}, {"threads", "128"}});
  EXPECT_TRUE(is_const_int(returned.functions()[0]->body.as<KernelNode>()->grid[0], 2));
  SourceError missing = error_of(kNestedFactory, {{"seq_len", "128"}});
  EXPECT_NE(std::string(missing.what())
                .find("factory 'kernel' needs a value for parameter "
                      "'block_M'"),
            std::string::npos)
      << missing.what();

  // The autotuned wrapper: None defaults are the tuner's to fill, so -D gives them; its
  // out_idx declares the outputs.
  std::map<std::string, std::string> tuned = {{"seq_len", "128"},
                                              {"tune", "True"},
                                              {"block_M", "16"},
                                              {"block_N", "16"},
                                              {"threads", "32"}};
  IRModule t = parse(kNestedFactory, tuned);
  EXPECT_TRUE(is_const_int(t.functions()[0]->body.as<KernelNode>()->grid[0], 8));
  EXPECT_EQ(output_indices(t.functions()[0]), std::vector<size_t>{1});
  tuned.erase("threads");
  SourceError none = error_of(kNestedFactory, tuned);
  EXPECT_NE(std::string(none.what()).find("needs a value for parameter 'threads'"),
            std::string::npos)
      << none.what();
  EXPECT_NE(none.hint().find("autotuner"), std::string::npos) << none.hint();

  // An eager jit kernel nested in a factory is refused at its def.
  std::string eager = error_of(R"(
def outer(N=8):
    @tilelang.jit
    def inner(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            A[0] = 1.0

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            A[0] = 1.0

    return main
)")
                          .what();
  EXPECT_NE(eager.find("an eager @tilelang.jit kernel cannot be defined inside 'outer'"),
            std::string::npos)
      << eager;
}

TEST(Factories, UnknownDefinesAreRejected) {
  SourceError e = error_of(kAdd, {{"Q", "1"}});
  EXPECT_NE(std::string(e.what()).find("-D Q=1"), std::string::npos) << e.what();
}

TEST(Constructs, LowerToTheirIR) {
  IRModule m = parse(R"(
@T.prim_func
def f(A: T.Tensor((8,), "int32"), S: T.Tensor((1,), "float32")):
    with T.Kernel(2):
        b = T.get_block_binding(0)
        lo, hi = A[b] & 3, A[b] >> 1
        T.atomic_add(S[0], T.Cast("float32", lo + hi))
)");
  auto* kernel = m.functions()[0]->body.as<KernelNode>();
  ASSERT_NE(kernel, nullptr);
  ASSERT_EQ(kernel->block_vars.size(), 1u);
  // Let b, Let lo, Let hi, Evaluate(atomic)
  auto* let_b = kernel->body.as<LetNode>();
  ASSERT_NE(let_b, nullptr);
  EXPECT_TRUE(let_b->value.same_as(kernel->block_vars[0]));
  auto* let_lo = let_b->body.as<LetNode>();
  ASSERT_NE(let_lo, nullptr);
  EXPECT_EQ(let_lo->value.as<BinaryNode>()->op, BinaryOp::kBitAnd);
  auto* let_hi = let_lo->body.as<LetNode>();
  EXPECT_EQ(let_hi->value.as<BinaryNode>()->op, BinaryOp::kShr);
  auto* ev = let_hi->body.as<EvaluateNode>();
  ASSERT_NE(ev, nullptr);
  const CallNode* atomic = as_atomic(ev->value);
  ASSERT_NE(atomic, nullptr);
  EXPECT_EQ(atomic->name, "atomic_add");
  EXPECT_EQ(atomic_op(*atomic), BinaryOp::kAdd);
}

const std::string kFn =
    "@T.prim_func\n"
    "def f(A: T.Tensor((8, 8), \"float32\"), n: T.int32):\n"
    "    with T.Kernel(1) as bx:\n";

void expect_error_at(const std::string& body, int line, int col, const std::string& message,
                     const std::string& hint = "") {
  SourceError e = error_of(body);
  EXPECT_EQ(e.span().line, line + 2) << e.what();
  EXPECT_EQ(e.span().col, col) << e.what();
  EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  if (!hint.empty()) {
    EXPECT_NE(e.hint().find(hint), std::string::npos) << e.hint();
  }
}

// Each family of hardware_only.h's table, written where TileLang users write it (a
// statement, an assigned value, an expression, a `with` scope, a T.Kernel keyword): the
// error is located at the construct, names it, what it is and the arch TileLang needs,
// says no tilec target lowers it, and hints at the portable tile operation.
struct HardwareOnlyCase {
  std::string body;  // lines after kFn's `with T.Kernel(1) as bx:`
  int col;
  std::string construct, what, arch, hint;
};

TEST(ConstructErrors, HopperAndBlackwellOnlyConstructsNameTheTargetThatHasThem) {
  const std::vector<HardwareOnlyCase> cases = {
      {"        t = T.alloc_tmem((8, 8), \"float32\")\n", 13, "T.alloc_tmem",
       "Blackwell tensor memory", "sm_100a", "T.alloc_fragment"},
      {"        T.tcgen05_mma_arrive(0)\n", 9, "T.tcgen05_mma_arrive", "tcgen05", "sm_100a",
       "T.gemm"},
      {"        T.mbarrier_wait_parity(0, 0)\n", 9, "T.mbarrier_wait_parity", "an mbarrier",
       "sm_90", "T.sync_threads()"},
      {"        T.mbarrier_expect_tx(0, 128)\n", 9, "T.mbarrier_expect_tx", "an mbarrier", "sm_90",
       "T.Pipelined"},
      {"        T.mbarrier_arrive(0)\n", 9, "T.mbarrier_arrive", "an mbarrier", "sm_90", ""},
      {"        b = T.alloc_barrier(128)\n", 13, "T.alloc_barrier", "mbarrier allocation", "sm_90",
       ""},
      {"        x = n + T.get_mbarrier(0)\n", 17, "T.get_mbarrier", "mbarrier handle", "sm_90", ""},
      {"        T.tma_copy(A, A)\n", 9, "T.tma_copy", "Tensor Memory Accelerator", "sm_90",
       "T.copy"},
      {"        T.fence_proxy_async()\n", 9, "T.fence_proxy_async", "async-proxy fence", "sm_90",
       ""},
      {"        T.wgmma_gemm(A, A, A)\n", 9, "T.wgmma_gemm", "warp-group MMA", "sm_90a", "T.gemm"},
      {"        T.warpgroup_wait(0)\n", 9, "T.warpgroup_wait", "warp-group MMA", "sm_90a", ""},
      {"        with T.ws(0):\n            T.clear(A)\n", 14, "with T.ws(...)",
       "warp-specialized scope", "sm_90", "T.Pipelined"},
      {"        T.set_max_nreg(240, 1)\n", 9, "T.set_max_nreg", "register reallocation", "sm_90a",
       "remove the call"},
      {"        T.cluster_sync()\n", 9, "T.cluster_sync", "cluster barrier", "sm_90", "T.Kernel"},
      {"        T.ptx_ldmatrix(A, 0)\n", 9, "T.ptx_ldmatrix", "a raw PTX instruction", "sm_80",
       "T.copy"},
      {"        T.ptx_wgmma_ss(A, A)\n", 9, "T.ptx_wgmma_ss", "raw PTX warp-group MMA", "sm_90a",
       "T.gemm"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.construct);
    SourceError e = error_of(kFn + c.body);
    std::string what = e.what();
    EXPECT_EQ(e.span().line, 6) << what;
    EXPECT_EQ(e.span().col, c.col) << what;
    EXPECT_NE(what.find(c.construct + " ("), std::string::npos) << what;
    EXPECT_NE(what.find(c.what), std::string::npos) << what;
    EXPECT_NE(what.find("needs an NVIDIA GPU of " + c.arch +
                        " or newer: TileLang's cuda target "
                        "(--target \"cuda -arch=" +
                        c.arch + "\")"),
              std::string::npos)
        << what;
    // The targets are the kinds registered when the kernel is parsed (none in this
    // front-end-only test; the CLI lists every backend's).
    std::vector<std::string> kinds = target::list_target_kind_names();
    std::string listed = kinds.empty() ? "" : " (" + target::join_names(kinds) + ")";
    EXPECT_NE(what.find("none of tilec's targets" + listed + " lowers it"), std::string::npos)
        << what;
    EXPECT_FALSE(e.hint().empty());
    EXPECT_NE(e.hint().find(c.hint), std::string::npos) << e.hint();
  }
}

// A cluster is refused at its launch: the T.Kernel keyword, or the whole `with` scope.
TEST(ConstructErrors, ClustersAreRefusedAtTheirLaunch) {
  auto check = [](const std::string& launch, int col, const std::string& message,
                  const std::string& hint) {
    SourceError e = error_of("@T.prim_func\ndef f(A: T.Tensor((8, 8), \"float32\")):\n    " +
                             launch + " as bx:\n        T.clear(A)\n");
    EXPECT_EQ(e.span().line, 5) << e.what();
    EXPECT_EQ(e.span().col, col) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find(hint), std::string::npos) << e.hint();
  };
  check("with T.Kernel(4, threads=128, cluster_dims=(2, 1, 1))", 35,
        "T.Kernel(cluster_dims=...) (a thread-block cluster launch) needs an NVIDIA GPU of sm_90 "
        "or newer",
        "drop cluster_dims=");
  check("with T.ClusterKernel(4, threads=128)", 10,
        "with T.ClusterKernel(...) (a thread-block cluster launch) needs an NVIDIA GPU of sm_90",
        "launch independent blocks with T.Kernel(...)");
}

TEST(ConstructErrors, GenericReduceNamesItsKinds) {
  const std::string fragments =
      "        a = T.alloc_fragment((8, 8), \"float32\")\n"
      "        r = T.alloc_fragment((8,), \"float32\")\n";
  expect_error_at(kFn + fragments + "        T.reduce(a, r, \"prod\", 1, True)\n", 6, 24,
                  "T.reduce's reduce_type must be \"sum\", \"max\", \"min\", \"abssum\" or "
                  "\"absmax\"",
                  "T.reduce_sum(A, B, dim=dim, clear=clear)");
  expect_error_at(kFn + fragments + "        T.reduce(a, r, \"sum\")\n", 6, 9, "dim");
  expect_error_at(kFn + fragments + "        T.reduce(a, r, \"max\", 2, True)\n", 6, 31,
                  "dim 2 is out of range for the 2-dimensional buffer 'a'");
}

TEST(ScalarParameterDefaults, AreRecordedAndPrintedBack) {
  IRModule mod = parse(
      "@T.prim_func\n"
      "def f(A: T.Tensor((8,), \"float32\"), n: T.int32 = 4, s: T.float32 = 2, b: T.bool = "
      "True, m: T.int64 = -5):\n"
      "    with T.Kernel(1) as bx:\n"
      "        for i in T.Parallel(8):\n"
      "            if b and i < n:\n"
      "                A[i] = A[i] * s + m\n");
  const PrimFunc& f = mod.functions()[0];
  EXPECT_EQ(param_default(*f, "n"), AttrValue(int64_t(4)));
  EXPECT_EQ(param_default(*f, "s"), AttrValue(2.0));
  EXPECT_EQ(param_default(*f, "b"), AttrValue(int64_t(1)));
  EXPECT_EQ(param_default(*f, "m"), AttrValue(int64_t(-5)));
  EXPECT_FALSE(param_default(*f, "A"));
  std::string printed = print(mod);
  EXPECT_NE(printed.find("n: T.int32 = 4, s: T.float32 = 2.0, b: T.bool = True, m: T.int64 = -5)"),
            std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("# attr tilec.param_default"), std::string::npos) << printed;
  IRModule again = parse_kernel_source(printed);
  EXPECT_EQ(again.functions()[0]->attrs, f->attrs);
}

TEST(ScalarParameterDefaults, BadDefaultsAreLocated) {
  auto header = [](const std::string& params) {
    return "@T.prim_func\ndef f(A: T.Tensor((8,), \"float32\")" + params +
           "):\n    with T.Kernel(1) as bx:\n        T.clear(A)\n";
  };
  SourceError tensor = error_of(
      "@T.prim_func\ndef f(A: T.Tensor((8,), \"float32\") = 0):\n    with T.Kernel(1) as bx:\n"
      "        T.clear(A)\n");
  EXPECT_NE(std::string(tensor.what()).find("tensor parameter 'A' takes no default"),
            std::string::npos)
      << tensor.what();
  SourceError range = error_of(header(", n: T.int8 = 300"));
  EXPECT_EQ(range.span().line, 4) << range.what();
  EXPECT_NE(std::string(range.what()).find("the default of 'n: T.int8' must be an int8 constant"),
            std::string::npos)
      << range.what();
  SourceError fraction = error_of(header(", n: T.int32 = 1.5"));
  EXPECT_NE(std::string(fraction.what()).find("must be an int32 constant"), std::string::npos)
      << fraction.what();
  EXPECT_NE(fraction.hint().find("n: T.int32 = 4"), std::string::npos) << fraction.hint();
  SourceError unsigned_default = error_of(header(", n: T.uint32 = -1"));
  EXPECT_NE(std::string(unsigned_default.what()).find("must be a uint32 constant"),
            std::string::npos)
      << unsigned_default.what();
}

TEST(ConstructErrors, ThreadBindingsAndBadUses) {
  expect_error_at(kFn + "        t = T.get_thread_binding(3)\n", 4, 13,
                  "the kernel has 1 thread dimension(s) (threads=128); T.get_thread_binding "
                  "names axis 3",
                  "threads=(x, y, z)");
  expect_error_at(kFn + "        t = T.launch_thread(\"threadIdx.x\", 64)\n", 4, 13,
                  "T.launch_thread(\"threadIdx.x\", 64) does not match the kernel's threads=128");
  expect_error_at(kFn + "        t = T.launch_thread(\"warp.x\", 64)\n", 4, 29,
                  "names a thread or block axis", "\"threadIdx.x\"");
  expect_error_at(kFn + "        v = T.shfl_down_sync(0, A[0, 0], 1)\n", 4, 13,
                  "T.shfl_down_sync (a warp-level exchange between threads) is not supported yet",
                  "T.sync_threads()");
  expect_error_at(kFn + "        v = T.shfl_xor(A[0, 0], 1, width=n)\n", 4, 13,
                  "T.shfl_xor's width must be a constant from 1 to 1024");
  expect_error_at(kFn + "        v = T.tvm_thread_allreduce(1, A[0, 0])\n", 4, 13,
                  "T.tvm_thread_allreduce (a warp-level exchange between threads)");
  expect_error_at(kFn + "        T.evaluate(T.thread_return())\n", 4, 20,
                  "T.thread_return is not supported");
  expect_error_at(
      kFn +
          "        for t in T.thread_binding(64, thread=\"threadIdx.x\"):\n            A[0, 0] = "
          "1.0\n",
      4, 18,
      "T.thread_binding inside a T.Kernel binds a thread axis from 0 to the kernel's extent");
  expect_error_at(kFn + "        t = T.get_block_binding(3)\n", 4, 13,
                  "the kernel has 1 grid dimension(s)");
  expect_error_at(kFn + "        T.gemm(A, A, A, policy=T.GemmWarpPolicy.Diagonal)\n", 4, 32,
                  "unknown T.GemmWarpPolicy.Diagonal", "Square, FullRow, FullCol");
  expect_error_at(kFn + "        s = T.alloc_buffer((4,), \"float32\", scope=\"texture\")\n", 4, 51,
                  "unknown storage scope 'texture'");
  expect_error_at(kFn + "        r = A[0, 0] & 1\n", 4, 21, "'&' needs integer operands");
  // 16-bit floats are atomic since issue 11's third part; 8-bit floats are not.
  expect_error_at(
      kFn + "        h = T.alloc_shared((4,), \"float8_e5m2\")\n        T.atomic_add(h[0], 1.0)\n",
      5, 9, "T.atomic_add on a float8_e5m2 element is not supported");
}

TEST(ConstructErrors, CheckRejectsAFunctionWithoutAKernel) {
  SourceError e =
      error_of("@T.prim_func\ndef f(A: T.Tensor((4,), \"float32\")):\n    A[0] = 1.0\n");
  EXPECT_NE(std::string(e.what()).find("function 'f' has no T.Kernel"), std::string::npos)
      << e.what();
  EXPECT_EQ(e.span().line, 3);
}

void expect_error(const std::string& body, const std::string& message, int line) {
  SourceError e = error_of(body);
  EXPECT_EQ(e.span().line, line + 2) << e.what();
  EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
}

TEST(ConstructErrors, RampBroadcastReducersAndFloat8) {
  expect_error(kFn + "        x = A[0, T.Ramp(0, 1, 4)]\n", "T.Ramp is a vector of 4 lanes", 4);
  expect_error(kFn + "        A[0, T.Ramp(0, 1, 4)] = A[1, T.Ramp(0, 1, 8)]\n",
               "T.Ramp has 8 lanes but the statement stores 4", 4);
  expect_error(kFn + "        A[0, T.Ramp(0, 1, 0)] = 1.0\n", "lanes must be between 1 and 64", 4);
  expect_error(kFn + "        A[0, 0] = T.Broadcast(1.0, 4)\n", "T.Broadcast is a vector", 4);
  expect_error(kFn + "        r = T.alloc_reducer((4,), \"float32\", op=\"prod\")\n",
               "T.alloc_reducer's op is", 4);
  expect_error(kFn + "        r = T.alloc_reducer((4,), \"float32\", op=\"bitor\")\n",
               "needs an integer dtype", 4);
  expect_error(kFn + "        r = T.alloc_reducer((4,), \"float32\", replication=\"some\")\n",
               "replication is", 4);
  expect_error(kFn + "        T.reducer_init(A)\n", "'A' is not a reducer", 4);
  expect_error(
      kFn + "        r = T.alloc_reducer((4,), \"float32\")\n        T.reducer_update(r, 1.0)\n",
      "updates one element of a reducer", 5);
  expect_error(kFn + "        r = T.alloc_reducer((4,), \"bool\", op=\"bitand\")\n",
               "the bitwise reducer op 'bitand' needs an integer dtype, not bool", 4);
  expect_error(
      kFn +
          "        r = T.alloc_reducer((4,), \"float32\")\n"
          "        d = T.alloc_fragment((8,), \"float32\")\n        T.finalize_reducer(r, d)\n",
      "destination must be a whole buffer of the reducer's shape", 6);
  expect_error(kFn +
                   "        h = T.alloc_reducer((4,), \"float8_e4m3\")\n"
                   "        T.reducer_update(h[0], 1.0)\n",
               "on a float8_e4m3 element is not supported", 5);
  expect_error(kFn + "        t = T.alloc_shared((4,), \"float8_e4m3fnuz\")\n",
               "unknown dtype 'float8_e4m3fnuz'", 4);
  expect_error(
      kFn + "        t = T.alloc_shared((4,), \"float8_e4m3\")\n        T.atomic_add(t[0], 1.0)\n",
      "T.atomic_add on a float8_e4m3 element is not supported", 5);
}

}  // namespace
}  // namespace tilec::ir
