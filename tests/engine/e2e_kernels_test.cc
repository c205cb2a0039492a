// Kernels written inline (and examples/gemm.py at edge-tile sizes), compiled on every CPU
// backend (runnable_backends.h: `c` with native, `llvm` with llvm_jit and with native) and checked
// against the interpreter: GEMM with edge tiles in every float dtype, transposed operands,
// symbolic dims, reductions and scalars.
#include "build_paths.h"
#include "runnable_backends.h"
#include "test_support.h"
#include "tilec/frontend/parser.h"

#include <map>

namespace tilec {
namespace {

using testing::EngineTest;
using testing::run_and_compare;

// examples/gemm.py at sizes that leave edge tiles in every dimension.
ir::IRModule gemm_with_edge_tiles(std::map<std::string, std::string> defines = {}) {
  defines.insert({{"M", "100"},
                  {"N", "72"},
                  {"K", "40"},
                  {"block_M", "32"},
                  {"block_N", "32"},
                  {"block_K", "16"},
                  {"dtype", "float32"},
                  {"accum_dtype", "float32"}});
  return ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/gemm.py", defines);
}

constexpr const char* kGemmTransposedSource = R"(import tilelang.language as T

M = 48
N = 40
K = 24


@T.prim_func
def gemm_nt(A: T.Tensor((K, M), "float32"), B: T.Tensor((N, K), "float32"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(T.ceildiv(N, 16), T.ceildiv(M, 16), threads=64) as (bx, by):
        A_shared = T.alloc_shared((8, 16), "float32")
        B_shared = T.alloc_shared((16, 8), "float32")
        C_local = T.alloc_fragment((16, 16), "float32")
        T.clear(C_local)
        for k in T.serial(T.ceildiv(K, 8)):
            T.copy(A[k * 8, by * 16], A_shared)
            T.copy(B[bx * 16, k * 8], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_A=True, transpose_B=True)
        T.copy(C_local, C[by * 16, bx * 16])
)";

constexpr const char* kVaddSource = R"(import tilelang.language as T

N = T.symbolic("N")
block = 32
dtype = "float32"


@T.prim_func
def vadd(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
    with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
        for i in T.Parallel(block):
            idx = bx * block + i
            if idx < N:
                C[idx] = A[idx] + B[idx]
)";

// Lane-dependent ifs nested three deep, the inner two with an else: vectors of lanes have
// some that take each side (the llvm codegen's all / none / mixed paths, masks within
// masks past the depth it versions).
constexpr const char* kNestedGuardsSource = R"(import tilelang.language as T

N = T.symbolic("N")
block = 64


@T.prim_func
def nested_guards(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, block), threads=64) as bx:
        for i in T.Parallel(block):
            idx = bx * block + i
            if idx < N:
                if A[idx] > 0.0:
                    if idx % 3 == 0:
                        B[idx] = A[idx] * 2.0
                    else:
                        B[idx] = A[idx] + 1.0
                else:
                    B[idx] = -A[idx]
)";

constexpr const char* kRowSumSource = R"(import tilelang.language as T

M = 37
N = 24
block_M = 8


@T.prim_func
def row_stats(A: T.Tensor((M, N), "float32"), S: T.Tensor((M,), "float32"), X: T.Tensor((M,), "float32")):
    with T.Kernel(T.ceildiv(M, block_M), threads=64) as bx:
        A_frag = T.alloc_fragment((block_M, N), "float32")
        S_frag = T.alloc_fragment((block_M,), "float32")
        X_frag = T.alloc_fragment((block_M,), "float32")
        T.copy(A[bx * block_M, 0], A_frag)
        T.reduce_sum(A_frag, S_frag, dim=1)
        T.reduce_absmax(A_frag, X_frag, dim=1)
        T.copy(S_frag, S[bx * block_M])
        T.copy(X_frag, X[bx * block_M])
)";

constexpr const char* kScaleSource = R"(import tilelang.language as T

N = T.symbolic("N")


@T.prim_func
def scale(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), alpha: T.float32):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < N:
                B[bx * 64 + i] = A[bx * 64 + i] * alpha
)";

// Whole-tensor gemms of symbolic M, N and K (the cpu lowering's symbolic fast path:
// blocks in loops of run-time trip counts, remainders, L1-sized K chunks), in float32 and
// with float16 inputs packed into float32 panels.
constexpr const char* kSymbolicGemmSource = R"(import tilelang.language as T

M = T.symbolic("M")
N = T.symbolic("N")
K = T.symbolic("K")


@T.prim_func
def gemm_sym(A: T.Tensor((M, K), "float32"), B: T.Tensor((K, N), "float32"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, clear_accum=True)


@T.prim_func
def gemm_sym_half(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K), "float16"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, transpose_B=True, clear_accum=True)
)";

// Tiles whose sizes no micro-kernel block divides (rows, whole vectors and lanes left
// over) in a blocked kernel with edge tiles, transposed B.
constexpr const char* kGemmOddTilesSource = R"(import tilelang.language as T

M = 45
N = 83
K = 29


@T.prim_func
def gemm_odd(A: T.Tensor((M, K), "float32"), B: T.Tensor((N, K), "float32"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(T.ceildiv(N, 42), T.ceildiv(M, 23), threads=64) as (bx, by):
        A_shared = T.alloc_shared((23, 13), "float32")
        B_shared = T.alloc_shared((42, 13), "float32")
        C_local = T.alloc_fragment((23, 42), "float32")
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, 13), num_stages=2):
            T.copy(A[by * 23, k * 13], A_shared)
            T.copy(B[bx * 42, k * 13], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_B=True)
        T.copy(C_local, C[by * 23, bx * 42])
)";

// A transposed float32 B packed in 16 x 16 register tiles (cpu/transpose_tile.h), with
// tiles left over on both axes: B_shared is 40 x 37 (2 x 2 whole tiles, 8 columns and 5
// rows left), and whole tensors of symbolic N and K (the tiles of a run-time extent and
// a run-time row stride).
constexpr const char* kGemmTransposedTilesSource = R"(import tilelang.language as T

M = 50
N = 90
K = 83


@T.prim_func
def gemm_nt_tiles(A: T.Tensor((M, K), "float32"), B: T.Tensor((N, K), "float32"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(T.ceildiv(N, 40), T.ceildiv(M, 24), threads=64) as (bx, by):
        A_shared = T.alloc_shared((24, 37), "float32")
        B_shared = T.alloc_shared((40, 37), "float32")
        C_local = T.alloc_fragment((24, 40), "float32")
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, 37), num_stages=2):
            T.copy(A[by * 24, k * 37], A_shared)
            T.copy(B[bx * 40, k * 37], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_B=True)
        T.copy(C_local, C[by * 24, bx * 40])
)";

constexpr const char* kSymbolicTransposedGemmSource = R"(import tilelang.language as T

M = T.symbolic("M")
N = T.symbolic("N")
K = T.symbolic("K")


@T.prim_func
def gemm_nt_sym(A: T.Tensor((M, K), "float32"), B: T.Tensor((N, K), "float32"), C: T.Tensor((M, N), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, transpose_B=True, clear_accum=True)
)";

using testing::CpuBackend;

class EndToEnd : public EngineTest, public ::testing::WithParamInterface<CpuBackend> {
 protected:
  void SetUp() override {
    TILEC_SKIP_UNLESS_BUILT(GetParam());
    EngineTest::SetUp();
  }
  Kernel compile_here(const ir::IRModule& mod) {
    return compile(mod, GetParam().target, std::nullopt, GetParam().execution_backend);
  }
  void expect_matches(const ir::IRModule& mod, const std::map<std::string, int64_t>& values = {}) {
    Kernel kernel = compile_here(mod);
    EXPECT_EQ(kernel.execution_backend(), GetParam().execution_backend);
    EXPECT_EQ(kernel.context().target().kind(), GetParam().target);
    for (const auto& func : mod.functions()) {
      auto result = run_and_compare(kernel, func, values);
      EXPECT_TRUE(result.ok) << result.detail;
    }
  }
};

TEST_P(EndToEnd, GemmWithEdgeTilesFloat32) {
  expect_matches(gemm_with_edge_tiles());
}

TEST_P(EndToEnd, GemmFloat16WithFloat32Accumulator) {
  expect_matches(gemm_with_edge_tiles({{"dtype", "float16"}}));
}

TEST_P(EndToEnd, GemmFloat16Accumulator) {
  expect_matches(gemm_with_edge_tiles({{"dtype", "float16"}, {"accum_dtype", "float16"}}));
}

TEST_P(EndToEnd, GemmBfloat16) {
  expect_matches(gemm_with_edge_tiles({{"dtype", "bfloat16"}}));
}

TEST_P(EndToEnd, GemmTransposedOperands) {
  expect_matches(ir::parse_kernel_source(kGemmTransposedSource));
}

TEST_P(EndToEnd, SymbolicShapeGemm) {
  ir::IRModule mod = ir::parse_kernel_source(kSymbolicGemmSource);
  for (const auto& values :
       std::vector<std::map<std::string, int64_t>>{{{"M", 1}, {"N", 1}, {"K", 1}},
                                                   {{"M", 37}, {"N", 50}, {"K", 7}},
                                                   {{"M", 21}, {"N", 33}, {"K", 300}}}) {
    SCOPED_TRACE(values.at("K"));
    expect_matches(mod, values);
  }
}

TEST_P(EndToEnd, GemmTilesNoBlockDivides) {
  expect_matches(ir::parse_kernel_source(kGemmOddTilesSource));
}

TEST_P(EndToEnd, GemmTransposedBInRegisterTiles) {
  expect_matches(ir::parse_kernel_source(kGemmTransposedTilesSource));
  ir::IRModule sym = ir::parse_kernel_source(kSymbolicTransposedGemmSource);
  for (const auto& values :
       std::vector<std::map<std::string, int64_t>>{{{"M", 3}, {"N", 5}, {"K", 7}},
                                                   {{"M", 20}, {"N", 37}, {"K", 50}},
                                                   {{"M", 9}, {"N", 64}, {"K", 300}}}) {
    SCOPED_TRACE(values.at("K"));
    expect_matches(sym, values);
  }
}

TEST_P(EndToEnd, VectorAddWithSymbolicLengthInEveryDtype) {
  for (const char* dtype : {"float32", "float16", "bfloat16", "float64", "int32", "int8"}) {
    ir::ParseOptions options;
    options.defines = {{"dtype", dtype}};
    SCOPED_TRACE(dtype);
    expect_matches(ir::parse_kernel_source(kVaddSource, options), {{"N", 1000}});
  }
}

TEST_P(EndToEnd, NestedLaneDependentGuardsWithElseBranches) {
  ir::IRModule mod = ir::parse_kernel_source(kNestedGuardsSource);
  for (int64_t n : {1, 64, 100, 1000}) {
    SCOPED_TRACE(n);
    expect_matches(mod, {{"N", n}});
  }
}

TEST_P(EndToEnd, RowReductionsWithPartialLastBlock) {
  expect_matches(ir::parse_kernel_source(kRowSumSource));
}

TEST_P(EndToEnd, ScalarParameter) {
  ir::IRModule mod = ir::parse_kernel_source(kScaleSource);
  Kernel kernel = compile_here(mod);
  std::vector<float> a(130), b(130, 0.0f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i) - 60.0f;
  kernel.call_raw({RawTensor{a.data(), {130}}, RawTensor{b.data(), {130}}, 0.5});
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(b[i], a[i] * 0.5f) << i;
}

// With LLVM the CPU's `auto` is `llvm -mcpu=<host>` on llvm_jit (the seed's rule: the
// default host is llvm when LLVM is enabled); without it, `c` on native.
TEST(EndToEndAuto, AutoTargetResolvesToTheCpuDefault) {
  testing::ScopedEnv cache("TILEC_DISABLE_CACHE", "1");
  ir::IRModule mod = ir::parse_kernel_source(kVaddSource);
  Kernel kernel = compile(mod);
  EXPECT_EQ(kernel.context().name(), "cpu");
#ifdef TILEC_HAVE_LLVM
  EXPECT_EQ(kernel.context().target().kind(), "llvm");
  EXPECT_FALSE(kernel.context().target().get_string("mcpu").empty());
  EXPECT_EQ(kernel.context().target_host().kind(), "llvm");
  EXPECT_EQ(kernel.execution_backend(), "llvm_jit");
#else
  EXPECT_EQ(kernel.context().target().kind(), "c");
  EXPECT_EQ(kernel.execution_backend(), "native");
#endif
  EXPECT_TRUE(run_and_compare(kernel, mod.functions()[0], {{"N", 77}}).ok);
}

TEST_P(EndToEnd, KernelExposesLoweredIrAndSources) {
  ir::IRModule mod = ir::parse_kernel_source(kVaddSource);
  Kernel kernel = compile_here(mod);
  EXPECT_NE(kernel.host_source().find("vadd"), std::string::npos);
  EXPECT_FALSE(kernel.device_source().empty());
  bool has_host = false, has_device = false;
  for (const auto& func : kernel.lowered().functions()) {
    auto kind = func->attrs.find("tilec.function_kind");
    ASSERT_NE(kind, func->attrs.end()) << func->name;
    has_host = has_host || std::get<std::string>(kind->second) == "host";
    has_device = has_device || std::get<std::string>(kind->second) == "device";
  }
  EXPECT_TRUE(has_host);
  EXPECT_TRUE(has_device);
  EXPECT_EQ(kernel.function_names(), std::vector<std::string>{"vadd"});
  EXPECT_GT(kernel.compile_ms(), 0.0);
  EXPECT_TRUE(std::filesystem::exists(kernel.library_path()));
}

TEST_P(EndToEnd, UnknownTargetOrExecutionBackendIsAClearError) {
  ir::IRModule mod = ir::parse_kernel_source(kVaddSource);
  try {
    compile(mod, GetParam().target, std::nullopt, "nvrtc");
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("native"), std::string::npos) << e.what();
  }
  EXPECT_THROW(compile(mod, "no_such_kind"), std::exception);
}

INSTANTIATE_TEST_SUITE_P(CpuBackends, EndToEnd, ::testing::ValuesIn(testing::cpu_backends()),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace tilec
