// Per-thread code (issue 11): T.get_thread_binding, T.launch_thread (inside a T.Kernel and
// TIR-style at a function's top level), T.thread_binding loops, multi-dimensional
// threads=, barriers, thread-private storage live across a barrier, a hand-written
// shared-memory tree reduction and a gemv in TileLang's style. Each kernel is parsed,
// checked, compiled on every CPU backend pair and on opencl (PoCL here; skipped, saying
// why, without a platform) and compared with the reference interpreter.
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/exec/execution_backend.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/check.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/structural.h"

namespace tilec {
namespace {

struct ThreadCase {
  std::string name;
  std::string source;  // after the imports
};

void PrintTo(const ThreadCase& c, std::ostream* out) {
  *out << c.name;
}

const char* kImports = "import tilelang\nimport tilelang.language as T\n\n";

// Every shuffle over two warps of 32 (and groups of 16 and 8): a butterfly sum, a shift
// down within groups of 16, a shift up, a broadcast from lane 5 of each group of 8.
const char* kShuffleKernel = R"(
@T.prim_func
def f(A: T.Tensor((128,), "float32"), B: T.Tensor((128,), "float32"),
      C: T.Tensor((128,), "float32"), D: T.Tensor((128,), "float32"),
      E: T.Tensor((128,), "float32")):
    with T.Kernel(2, threads=64) as bx:
        tx = T.get_thread_binding(0)
        v = T.alloc_local((1,), "float32")
        v[0] = A[bx * 64 + tx]
        for s in T.unroll(5):
            v[0] += T.shfl_xor(v[0], 16 >> s)
        B[bx * 64 + tx] = v[0]
        down = T.shfl_down(A[bx * 64 + tx], 3, width=16)
        C[bx * 64 + tx] = down
        D[bx * 64 + tx] = T.shfl_up(A[bx * 64 + tx], 1)
        E[bx * 64 + tx] = T.shfl_sync(A[bx * 64 + tx], 5, 8)
)";

std::vector<ThreadCase> cases() {
  return {
      {"GetThreadBinding", R"(
@T.prim_func
def f(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32")):
    with T.Kernel(2, threads=128) as bx:
        tx = T.get_thread_binding(0)
        B[bx * 128 + tx] = A[bx * 128 + tx] * 2.0 + tx
)"},
      {"KernelWithoutAsAndTwoThreadAxes", R"(
@T.prim_func
def f(A: T.Tensor((4, 8, 16), "float32"), B: T.Tensor((4, 8, 16), "float32")):
    with T.Kernel(4, threads=(16, 8)):
        b = T.get_block_binding(0)
        tx = T.launch_thread("threadIdx.x", 16)
        ty = T.get_thread_binding(1)
        T.launch_thread("threadIdx.z", 1)
        B[b, ty, tx] = A[b, ty, tx] + ty * 100 + tx
)"},
      {"LaunchThreadAtTopLevel", R"(
@T.prim_func
def f(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    bx = T.launch_thread("blockIdx.x", 4)
    S = T.alloc_shared((16,), "float32")
    tx = T.launch_thread("threadIdx.x", 16)
    S[tx] = A[bx * 16 + tx]
    T.tvm_storage_sync("shared")
    B[bx * 16 + tx] = S[15 - tx]
)"},
      {"ThreadBindingLoop", R"(
@T.prim_func
def f(A: T.Tensor((96,), "float32"), B: T.Tensor((96,), "float32")):
    with T.Kernel(3, threads=32) as bx:
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S = T.alloc_shared((32,), "float32")
            S[tx] = A[bx * 32 + tx]
            T.sync_threads()
            B[bx * 32 + tx] = S[(tx + 1) % 32] - S[tx]
)"},
      {"PrivateValuesLiveAcrossABarrier", R"(
@T.prim_func
def f(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(2, threads=32) as bx:
        tx = T.get_thread_binding(0)
        S = T.alloc_shared((32,), "float32")
        R = T.alloc_shared((32,), "float32")
        acc = T.alloc_local((2,), "float32")
        n = T.alloc_var("int32", init=tx * 2)
        v = A[bx * 32 + tx] * 3.0
        acc[0] = v
        acc[1] = v + 1.0
        S[tx] = v
        T.sync_threads()
        R[tx] = S[31 - tx] + acc[0]
        n = n + 1
        T.sync_threads()
        B[bx * 32 + tx] = R[(tx + 5) % 32] + acc[1] + v + n
)"},
      {"SharedTreeReduction", R"(
@T.prim_func
def f(A: T.Tensor((256,), "float32"), B: T.Tensor((4,), "float32")):
    with T.Kernel(4, threads=64) as bx:
        tx = T.get_thread_binding(0)
        S = T.alloc_shared((64,), "float32")
        S[tx] = A[bx * 64 + tx]
        T.sync_threads()
        for k in T.serial(6):
            stride = 32 >> k
            if tx < stride:
                S[tx] = S[tx] + S[tx + stride]
            T.sync_threads()
        if tx == 0:
            B[bx] = S[0]
)"},
      {"TileOpsAndPerThreadCodeInOneBlock", R"(
@T.prim_func
def f(A: T.Tensor((64, 16), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(4, threads=16) as bx:
        tx = T.get_thread_binding(0)
        tile = T.alloc_shared((16, 16), "float32")
        row = T.alloc_fragment((16,), "float32")
        part = T.alloc_local((1,), "float32")
        T.copy(A[bx * 16, 0], tile)
        T.clear(part)
        for j in T.serial(16):
            part[0] += tile[tx, j]
        T.reduce_sum(tile, row, dim=1)
        tile[tx, 0] = part[0] * 2.0 - row[tx]
        T.sync_threads()
        B[bx * 16 + tx] = tile[15 - tx, 0]
)"},
      {"SplitKGemvWithSharedAtomics", R"(
def splitk_gemv(N=64, K=256, BLOCK_N=8, reduce_threads=4, dtype="float16", accum_dtype="float"):
    TILE_K = T.ceildiv(K, reduce_threads * 4)

    @T.prim_func
    def main(A: T.Tensor((K,), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, BLOCK_N), threads=(BLOCK_N, reduce_threads)) as bn:
            tn = T.get_thread_binding(0)
            tk = T.get_thread_binding(1)
            A_local = T.alloc_local((TILE_K,), dtype)
            B_local = T.alloc_local((TILE_K,), dtype)
            C_shared = T.alloc_shared((BLOCK_N,), accum_dtype)
            C_accum = T.alloc_local((1,), accum_dtype)
            if tk == 0:
                C_shared[tn] = 0
            T.clear(C_accum)
            T.sync_threads()
            for bk in T.serial(4):
                for k in T.serial(TILE_K):
                    A_local[k] = A[bk * reduce_threads * TILE_K + tk * TILE_K + k]
                    B_local[k] = B[bn * BLOCK_N + tn, bk * reduce_threads * TILE_K + tk * TILE_K + k]
                for k in T.serial(TILE_K):
                    C_accum[0] += A_local[k].astype(accum_dtype) * B_local[k].astype(accum_dtype)
            T.atomic_add(C_shared[tn], C_accum[0])
            T.sync_threads()
            C[bn * BLOCK_N + tn] = C_shared[tn]

    return main
)"},
      {"SharedAtomicsWithoutWrittenBarriers", R"(
@T.prim_func
def f(A: T.Tensor((8, 64), "float32"), C: T.Tensor((8,), "float32")):
    with T.Kernel(2, threads=(4, 16)) as bx:
        r = T.get_thread_binding(0)
        k = T.get_thread_binding(1)
        S = T.alloc_shared((4,), "float32")
        part = T.alloc_local((1,), "float32")
        if k == 0:
            S[r] = 0.0
        part[0] = 0.0
        for j in T.serial(4):
            part[0] += A[bx * 4 + r, k * 4 + j]
        T.atomic_add(S[r], part[0])
        C[bx * 4 + r] = S[r]
)"},
      {"WarpShuffles", kShuffleKernel},
  };
}

using Backend = testing::CpuBackend;

using Param = std::tuple<ThreadCase, Backend>;

class ThreadBindings : public testing::EngineTest, public ::testing::WithParamInterface<Param> {};

class ThreadBindingsLanes : public testing::EngineTest {};

ir::IRModule parse(const ThreadCase& c) {
  ir::ParseOptions options;
  options.filename = c.name + ".py";
  std::string source = kImports + c.source;
  ir::IRModule mod = ir::parse_kernel_source(source, options);
  ir::check_module_or_throw(mod, options.filename, source);
  return mod;
}

TEST_P(ThreadBindings, CompilesAndMatchesTheInterpreter) {
  const auto& [c, backend] = GetParam();
  TILEC_SKIP_UNLESS_RUNNABLE(backend);
  ir::IRModule mod = parse(c);
  ASSERT_EQ(mod.functions().size(), 1u);
  Kernel kernel = testing::compile_on(mod, backend);
  ASSERT_EQ(kernel.context().target().kind(), backend.target);
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

INSTANTIATE_TEST_SUITE_P(PerThreadCode, ThreadBindings,
                         ::testing::Combine(::testing::ValuesIn(cases()),
                                            ::testing::ValuesIn(testing::runnable_backends())),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::get<0>(info.param).name + "_" +
                                  std::get<1>(info.param).name();
                         });

// The shuffles' lanes, checked against values computed here (A[i] = i) rather than
// against the interpreter, on the C backend.
TEST_F(ThreadBindingsLanes, ShufflesReadTheLanesTheyName) {
  ir::IRModule mod = parse({"WarpShuffles", kShuffleKernel});
  Kernel kernel = compile(mod, "c", std::nullopt, "native");
  std::vector<ir::HostTensor> t;
  for (int i = 0; i < 5; ++i) t.emplace_back(ir::DataType::Float32(), std::vector<int64_t>{128});
  for (int64_t i = 0; i < 128; ++i) t[0].set(i, double(i));
  std::vector<KernelArg> args;
  for (auto& x : t) args.push_back(x.view());
  kernel.call(args);
  for (int64_t i = 0; i < 128; ++i) {
    int64_t warp = i / 32 * 32, lane16 = i % 16;
    double sum = 0;
    for (int64_t j = 0; j < 32; ++j) sum += double(warp + j);
    EXPECT_EQ(t[1].get(i), sum) << i;
    EXPECT_EQ(t[2].get(i), lane16 + 3 < 16 ? double(i + 3) : double(i)) << i;
    EXPECT_EQ(t[3].get(i), i % 32 >= 1 ? double(i - 1) : double(i)) << i;
    EXPECT_EQ(t[4].get(i), double(i / 8 * 8 + 5)) << i;
  }
}

// The printed kernel binds its thread indices with T.thread_binding loops (the IR's form
// of per-thread code) and parses back to the same IR.
TEST(ThreadBindingsPrint, RoundTrips) {
  for (const auto& c : cases()) {
    ir::IRModule mod = parse(c);
    std::string printed = ir::print(mod);
    EXPECT_NE(printed.find("thread=\"threadIdx.x\""), std::string::npos) << printed;
    ir::IRModule again = ir::parse_kernel_source(printed);
    EXPECT_TRUE(ir::structural_equal(mod, again)) << c.name << "\n" << printed;
  }
}

}  // namespace
}  // namespace tilec
