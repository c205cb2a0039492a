// The cuda backend's kernels on the `emulator` execution backend (exec/emulator.h): the
// tensor-core gemm (ldmatrix in every transpose, mma.sync in float16 and bfloat16), the
// cp.async pipeline at 2 and 3 stages and the warp-shuffle reduce each run -- their calls
// are checked in the device source -- and match the interpreter with race checking on.
// Planted bugs, made by editing a built kernel-cache entry and running its rebuild.sh as
// a user debugging a kernel would, must be caught: a barrier the planner placed removed
// (a race), a wrong ldmatrix or mma lane mapping in the entry's copy of the emulator's
// helpers (the results differ), a barrier only some threads reach and warp lanes that
// disagree on a shuffle's mask (errors naming threads and lines, never a hang).
#include "../engine/test_support.h"

#include "tilec/exec/emulator.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"
#include "tilec/transform/bounds_check.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

std::string gemm_source(const std::string& dtype, bool trans_a, bool trans_b, int stages) {
  return fmt::format(R"PY(
import tilelang.language as T

M, N, K = 96, 64, 80
@T.prim_func
def gemm(A: T.Tensor(({a_shape}), "{dtype}"), B: T.Tensor(({b_shape}), "{dtype}"),
         C: T.Tensor((M, N), "float32")):
    with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
        A_shared = T.alloc_shared(({a_tile}), "{dtype}")
        B_shared = T.alloc_shared(({b_tile}), "{dtype}")
        C_local = T.alloc_fragment((64, 64), "float32")
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, 32), num_stages={stages}):
            T.copy(A[{a_index}], A_shared)
            T.copy(B[{b_index}], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_A={trans_a}, transpose_B={trans_b})
        T.copy(C_local, C[by * 64, bx * 64])
)PY",
                     fmt::arg("dtype", dtype), fmt::arg("stages", stages),
                     fmt::arg("trans_a", trans_a ? "True" : "False"),
                     fmt::arg("trans_b", trans_b ? "True" : "False"),
                     fmt::arg("a_shape", trans_a ? "K, M" : "M, K"),
                     fmt::arg("b_shape", trans_b ? "N, K" : "K, N"),
                     fmt::arg("a_tile", trans_a ? "32, 64" : "64, 32"),
                     fmt::arg("b_tile", trans_b ? "64, 32" : "32, 64"),
                     fmt::arg("a_index", trans_a ? "k * 32, by * 64" : "by * 64, k * 32"),
                     fmt::arg("b_index", trans_b ? "bx * 64, k * 32" : "k * 32, bx * 64"));
}

const char* kRowReduce = R"PY(
import tilelang.language as T

@T.prim_func
def row_reduce(X: T.Tensor((20, 70), "float32"), M: T.Tensor((20,), "float32"),
               S: T.Tensor((20,), "float32")):
    with T.Kernel(3, threads=64) as bx:
        X_local = T.alloc_fragment((20, 70), "float32")
        m = T.alloc_fragment((20,), "float32")
        s = T.alloc_fragment((20,), "float32")
        T.copy(X, X_local)
        T.reduce_max(X_local, m, dim=1)
        T.reduce_sum(X_local, s, dim=1)
        T.copy(m, M)
        T.copy(s, S)
)PY";

// A block-level shared-memory exchange: each thread reads what its neighbour stored.
const char* kNeighbours = R"PY(
import tilelang.language as T

@T.prim_func
def neighbours(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32")):
    with T.Kernel(2, threads=128) as bx:
        tx = T.get_thread_binding(0)
        S = T.alloc_shared((128,), "float32")
        S[tx] = A[bx * 128 + tx]
        T.sync_threads()
        B[bx * 128 + tx] = S[(tx + 1) % 128] - S[tx]
)PY";

constexpr const char* kTarget = "cuda -arch=sm_80";

Kernel compile_emulated(const std::string& source, bool race_check = true) {
  PassConfig config;
  if (race_check) config[exec::kEmulatorRaceCheckConfigKey] = true;
  return compile(ir::parse_kernel_source(source), kTarget, std::nullopt, exec::kEmulatorBackendName,
                 config);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class Emulator : public testing::EngineTest {
 protected:
  void SetUp() override {
    auto backend = exec::get_execution_backend(exec::kEmulatorBackendName);
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
    EngineTest::SetUp();
  }

  // Compiles `source` into the test's kernel cache, lets `edit` change the entry's files,
  // rebuilds the entry's device library with its rebuild.sh, and compiles again: the
  // cache hit loads the edited library.
  Kernel edited(const std::string& source, const std::function<void(const fs::path&)>& edit) {
    Kernel first = compile_emulated(source);
    fs::path entry = first.library_path().parent_path();
    edit(entry);
    exec::ProcessResult rebuilt = exec::run_process({"sh", (entry / "rebuild.sh").string()});
    EXPECT_EQ(rebuilt.exit_code, 0) << rebuilt.output;
    Kernel again = compile_emulated(source);
    EXPECT_TRUE(again.cache_hit());
    return again;
  }

  static std::string run_error(const Kernel& kernel, const ir::PrimFunc& func) {
    try {
      testing::run_and_compare(kernel, func);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
};

struct GemmCase {
  std::string dtype;
  bool trans_a;
  bool trans_b;
  int stages;
};

class EmulatedTensorCoreGemm : public Emulator, public ::testing::WithParamInterface<GemmCase> {};

TEST_P(EmulatedTensorCoreGemm, RunsLdmatrixMmaAndCpAsyncAndMatchesTheInterpreter) {
  const GemmCase& c = GetParam();
  std::string source = gemm_source(c.dtype, c.trans_a, c.trans_b, c.stages);
  Kernel kernel = compile_emulated(source);
  const std::string& device = kernel.device_source();
  std::string mma = c.dtype == "float16" ? "tilec_mma_m16n8k16_f16(" : "tilec_mma_m16n8k16_bf16(";
  EXPECT_GT(count(device, mma), 1u) << device;
  // A is read m-major (x4.trans) when transposed; B k-major (x2.trans) unless transposed.
  EXPECT_GT(count(device, c.trans_a ? "tilec_ldmatrix_x4_trans(&" : "tilec_ldmatrix_x4(&"), 0u);
  EXPECT_GT(count(device, c.trans_b ? "tilec_ldmatrix_x2(&" : "tilec_ldmatrix_x2_trans(&"), 0u);
  EXPECT_GT(count(device, "tilec_cp_async_cg16(&"), 0u);
  EXPECT_NE(device.find(fmt::format("tilec_cp_async_wait_group({})", c.stages - 2)),
            std::string::npos);
  ir::IRModule mod = ir::parse_kernel_source(source);
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

INSTANTIATE_TEST_SUITE_P(Cuda, EmulatedTensorCoreGemm,
                         ::testing::Values(GemmCase{"float16", false, false, 3},
                                           GemmCase{"float16", true, false, 2},
                                           GemmCase{"bfloat16", false, true, 3},
                                           GemmCase{"bfloat16", true, true, 2}),
                         [](const ::testing::TestParamInfo<GemmCase>& info) {
                           const GemmCase& c = info.param;
                           return fmt::format("{}_A{}_B{}_{}stages", c.dtype, c.trans_a ? "t" : "n",
                                              c.trans_b ? "t" : "n", c.stages);
                         });

// 96 KB of staged tiles: above the 48 KB of static shared memory, so the kernel's tiles
// live in the dynamic `extern __shared__` array the launch sizes.
TEST_F(Emulator, RunsKernelsWhoseTilesNeedDynamicSharedMemory) {
  ir::IRModule mod = ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/gemm.py",
                                           {{"M", "256"},
                                            {"N", "128"},
                                            {"K", "192"},
                                            {"block_M", "128"},
                                            {"block_N", "128"},
                                            {"block_K", "64"}});
  Kernel kernel = compile(mod, kTarget, std::nullopt, exec::kEmulatorBackendName,
                          {{exec::kEmulatorRaceCheckConfigKey, true}});
  EXPECT_NE(kernel.device_source().find("extern __shared__"), std::string::npos);
  EXPECT_NE(kernel.device_source().find("tilec_dynamic_shared_bytes_gemm_kernel = 98304"),
            std::string::npos);
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

TEST_F(Emulator, RunsTheWarpShuffleReduce) {
  Kernel kernel = compile_emulated(kRowReduce);
  EXPECT_NE(kernel.device_source().find("tilec_subgroup_reduce_sum("), std::string::npos);
  EXPECT_NE(kernel.device_source().find("__shfl_xor_sync(0xffffffffu"), std::string::npos);
  auto result =
      testing::run_and_compare(kernel, ir::parse_kernel_source(kRowReduce).functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

TEST_F(Emulator, ReportsARaceWhenAPlannedBarrierIsRemoved) {
  std::string source = gemm_source("float16", false, false, 3);
  Kernel kernel = edited(source, [](const fs::path& entry) {
    // The barrier after each iteration's wait orders the copies before the ldmatrix reads.
    std::string text = read_file(entry / "device.cu");
    std::regex barrier_after_wait(R"((tilec_cp_async_wait_group\(1\)\);\s*)__syncthreads\(\);)");
    ASSERT_TRUE(std::regex_search(text, barrier_after_wait)) << text;
    write_file(entry / "device.cu", std::regex_replace(text, barrier_after_wait, "$1"));
  });
  std::string error = run_error(kernel, ir::parse_kernel_source(source).functions()[0]);
  EXPECT_NE(error.find("shared-memory race"), std::string::npos) << error;
  EXPECT_NE(error.find("tilec_ldmatrix"), std::string::npos) << error;       // the reader's line
  EXPECT_NE(error.find("tilec_cp_async_cg16"), std::string::npos) << error;  // the writer's
}

TEST_F(Emulator, ReportsARaceOnPlainSharedAccessesWithTheirLines) {
  Kernel kernel = edited(kNeighbours, [](const fs::path& entry) {
    std::string text = read_file(entry / "device.cu");
    ASSERT_EQ(count(text, "__syncthreads();"), 1u) << text;
    text.replace(text.find("__syncthreads();"), std::string("__syncthreads();").size(), "");
    write_file(entry / "device.cu", text);
  });
  std::string error = run_error(kernel, ir::parse_kernel_source(kNeighbours).functions()[0]);
  EXPECT_NE(error.find("shared-memory race"), std::string::npos) << error;
  EXPECT_NE(error.find("race on shared array 'S', byte "), std::string::npos) << error;
  EXPECT_NE(error.find("S[tx] = A[bx * 128 + tx];"), std::string::npos) << error;
  EXPECT_NE(error.find("% 128]"), std::string::npos) << error;
}

TEST_F(Emulator, AWrongLdmatrixLaneMappingFailsTheComparison) {
  std::string source = gemm_source("float16", false, false, 3);
  Kernel kernel = edited(source, [](const fs::path& entry) {
    fs::path helper = entry / "emu_include/tilec/emu/cuda.h";
    std::string text = read_file(helper);
    std::string right = "rows[m * 8 + l / 4][pair]";
    ASSERT_NE(text.find(right), std::string::npos);
    text.replace(text.find(right), right.size(), "rows[m * 8 + l % 8][pair]");
    write_file(helper, text);
  });
  auto result = testing::run_and_compare(kernel, ir::parse_kernel_source(source).functions()[0]);
  EXPECT_FALSE(result.ok);
}

TEST_F(Emulator, AWrongMmaFragmentLayoutFailsTheComparison) {
  std::string source = gemm_source("bfloat16", false, false, 3);
  Kernel kernel = edited(source, [](const fs::path& entry) {
    fs::path helper = entry / "emu_include/tilec/emu/cuda.h";
    std::string text = read_file(helper);
    // B's element i: rows 2t + i % 2 (+ 8 for i >= 2); the wrong one swaps the halves.
    std::string right = "b[2 * t + i % 2 + 8 * (i >= 2)][g]";
    ASSERT_NE(text.find(right), std::string::npos);
    text.replace(text.find(right), right.size(), "b[2 * t + i / 2 + 8 * (i % 2)][g]");
    write_file(helper, text);
  });
  auto result = testing::run_and_compare(kernel, ir::parse_kernel_source(source).functions()[0]);
  EXPECT_FALSE(result.ok);
}

TEST_F(Emulator, ABarrierOnlySomeThreadsReachIsAnErrorNotAHang) {
  Kernel kernel = edited(kNeighbours, [](const fs::path& entry) {
    std::string text = read_file(entry / "device.cu");
    ASSERT_NE(text.find("__syncthreads();"), std::string::npos);
    text.replace(text.find("__syncthreads();"), std::string("__syncthreads();").size(),
                 "if (threadIdx.x < 64) __syncthreads();");
    write_file(entry / "device.cu", text);
  });
  std::string error = run_error(kernel, ir::parse_kernel_source(kNeighbours).functions()[0]);
  // Either block may fail first: they run on the thread pool at once.
  EXPECT_TRUE(
      std::regex_search(error, std::regex(R"(kernel 'neighbours_kernel', block \([01], 0, 0\))")))
      << error;
  EXPECT_NE(error.find("without reaching the barrier at device.cu:"), std::string::npos) << error;
  EXPECT_NE(error.find("if (threadIdx.x < 64) __syncthreads();"), std::string::npos) << error;
  EXPECT_NE(error.find("thread (64, 0, 0)"), std::string::npos) << error;
}

TEST_F(Emulator, BarriersAtTwoPlacesAreADivergenceError) {
  Kernel kernel = edited(kNeighbours, [](const fs::path& entry) {
    std::string text = read_file(entry / "device.cu");
    text.replace(text.find("__syncthreads();"), std::string("__syncthreads();").size(),
                 "if (threadIdx.x % 2) {\n__syncthreads();\n} else {\n__syncthreads();\n}");
    write_file(entry / "device.cu", text);
  });
  std::string error = run_error(kernel, ir::parse_kernel_source(kNeighbours).functions()[0]);
  EXPECT_NE(error.find("divergent branch"), std::string::npos) << error;
}

TEST_F(Emulator, WarpLanesThatDisagreeOnAShuffleMaskAreAnError) {
  Kernel kernel = edited(kRowReduce, [](const fs::path& entry) {
    std::string text = read_file(entry / "device.cu");
    std::string shuffle = "v += __shfl_xor_sync(0xffffffffu, v, offset);";
    ASSERT_NE(text.find(shuffle), std::string::npos) << text;
    text.replace(text.find(shuffle), shuffle.size(),
                 "v += __shfl_xor_sync(threadIdx.x % 32 < 16 ? 0xffffffffu : 0xffff0000u, v, "
                 "offset);");
    write_file(entry / "device.cu", text);
  });
  std::string error = run_error(kernel, ir::parse_kernel_source(kRowReduce).functions()[0]);
  EXPECT_TRUE(std::regex_search(error, std::regex(R"(the lanes of warp [01] disagree)"))) << error;
  EXPECT_NE(error.find("mask 0xffff0000"), std::string::npos) << error;
  EXPECT_NE(error.find("__shfl_xor_sync"), std::string::npos) << error;
}

TEST_F(Emulator, IsNeverChosenByAutoAndTheNoDriverErrorNamesIt) {
  Kernel kernel = compile(ir::parse_kernel_source(kNeighbours), kTarget);
  EXPECT_NE(kernel.execution_backend(), exec::kEmulatorBackendName);
  if (kernel.execution_backend() == exec::kEmulatorBackendName) return;
  try {
    testing::run_and_compare(kernel, ir::parse_kernel_source(kNeighbours).functions()[0]);
  } catch (const std::exception& e) {
    // Without a GPU: the error says how to run here instead.
    std::string error = e.what();
    if (error.find("no CUDA driver") != std::string::npos ||
        error.find("source execution backend") != std::string::npos) {
      EXPECT_NE(error.find("--execution-backend emulator"), std::string::npos) << error;
    }
  }
}

// The CuTe variant where its atoms are plain C++: the float32 gemm is one cute::gemm on a
// TiledMMA of UniversalFMA, the tiles' copies cute::copy of UniversalCopy (the pipeline's
// cp.async atoms copy at once on the emulator: early, which cp.async allows).
TEST_F(Emulator, RunsTheCuteVariantWhereItsAtomsArePlainCxx) {
  ir::IRModule mod = ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/gemm_fp32.py",
                                           {{"M", "96"}, {"N", "128"}, {"K", "72"}});
  Kernel kernel = compile(mod, "cuda -arch=sm_80 -keys=cuda,gpu,cute", std::nullopt,
                          exec::kEmulatorBackendName, {{exec::kEmulatorRaceCheckConfigKey, true}});
  EXPECT_EQ(kernel.context().name(), "cute");
  EXPECT_NE(kernel.device_source().find("tilec_cute::gemm_ss<2,"), std::string::npos);
  EXPECT_NE(kernel.device_source().find("tilec_cute::copy_tile<"), std::string::npos);
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

TEST_F(Emulator, RefusesCuteTensorCoreAtomsSayingWhatToUse) {
  std::string source = gemm_source("float16", false, false, 2);
  try {
    compile(ir::parse_kernel_source(source), "cuda -arch=sm_80 -keys=cuda,gpu,cute", std::nullopt,
            exec::kEmulatorBackendName);
    FAIL() << "the emulator built a CuTe tensor-core gemm";
  } catch (const std::exception& e) {
    std::string error = e.what();
    EXPECT_NE(error.find("tensor-core atoms"), std::string::npos) << error;
    EXPECT_NE(error.find("--target \"cuda -arch="), std::string::npos) << error;
  }
}

// The bounds-checked CUDA source is the emulator's and a GPU's alike: NVRTC builds it
// (tilec_bounds_violation is printf and __trap there).
TEST_F(Emulator, BoundsCheckedSourceAlsoBuildsWithNvrtc) {
  auto nvrtc = exec::get_execution_backend("nvrtc");
  if (!nvrtc->available()) GTEST_SKIP() << nvrtc->unavailable_reason();
  ir::IRModule mod =
      ir::parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/tests/tools/catalogue/gather.py");
  Kernel kernel =
      compile(mod, kTarget, std::nullopt, "nvrtc", {{transform::kBoundsCheckConfigKey, true}});
  EXPECT_NE(kernel.device_source().find("tilec_bounds_violation(\"line 12:33: load 'X'"),
            std::string::npos)
      << kernel.device_source();
  EXPECT_NE(kernel.device_source().find("__trap();"), std::string::npos);
}

}  // namespace
}  // namespace tilec
