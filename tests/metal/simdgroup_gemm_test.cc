// The simdgroup-matrix gemm and the MSL shim of the emulator: the accumulator layout is a
// bijection and is Apple's thread_elements() layout (written here independently, as MLX's
// BaseMMAFrag::get_coord states it); the simdgroup split follows policy=; float16 and float32
// gemms in every transpose run on simdgroup_load / simdgroup_multiply_accumulate through the
// emulator and match the interpreter with race checking on, while bfloat16 takes the SIMT
// gemm. Planted bugs, made by editing a built kernel-cache entry and running its rebuild.sh:
// a wrong lane mapping in the entry's copy of the shim fails the comparison, lanes that pass
// different pointers to a cooperative simdgroup_load are an error naming the line, and a
// removed threadgroup barrier is a race.
#include "../engine/test_support.h"

#include "tilec/exec/emulator.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"
#include "tilec/metal/simdgroup_gemm.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

TEST(SimdgroupLayout, IsABijectionAndApplesThreadElements) {
  metal::SimdgroupTiling tiling{2, 2, 32, 16};
  gpu::FragmentLayout layout = metal::simdgroup_accumulator_layout(64, 32, tiling);
  EXPECT_EQ(gpu::check_layout(layout), "");
  EXPECT_EQ(layout.registers, 4 * 2 * 2);
  for (int64_t i = 0; i < 64; ++i) {
    for (int64_t j = 0; j < 32; ++j) {
      int64_t thread = layout.thread_at({i, j});
      int64_t lane = thread % 32, group = thread / 32;
      EXPECT_EQ(group, (i / 32) * 2 + j / 16);
      // MLX: qid = lane / 4, row = (qid & 4) + (lane / 2) % 4, col = (qid & 2) * 2 + (lane % 2)
      // * 2.
      int64_t qid = lane / 4;
      EXPECT_EQ(i % 8, (qid & 4) + (lane / 2) % 4) << i << "," << j;
      EXPECT_EQ(j % 8 - j % 2, (qid & 2) * 2 + (lane % 2) * 2) << i << "," << j;
      EXPECT_EQ(layout.register_at({i, j}) % 2, j % 2);
    }
  }
}

TEST(SimdgroupTiling, FollowsThePolicyAndNeedsWholeSimdgroups) {
  auto square = metal::choose_simdgroup_tiling(64, 64, 128);
  ASSERT_TRUE(square);
  EXPECT_EQ(square->groups_m, 2);
  EXPECT_EQ(square->groups_n, 2);
  auto rows = metal::choose_simdgroup_tiling(64, 64, 128, ir::GemmWarpPolicy::kFullRow);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->groups_m, 4);
  auto cols = metal::choose_simdgroup_tiling(64, 64, 128, ir::GemmWarpPolicy::kFullCol);
  ASSERT_TRUE(cols);
  EXPECT_EQ(cols->groups_n, 4);
  EXPECT_FALSE(metal::choose_simdgroup_tiling(64, 64, 96 + 16));  // not whole simdgroups
  EXPECT_FALSE(metal::choose_simdgroup_tiling(12, 64, 32));       // M not in 8-row matrices
}

std::string gemm_source(const std::string& dtype, bool trans_a, bool trans_b) {
  return fmt::format(R"PY(
import tilelang.language as T

M, N, K = 72, 40, 48
@T.prim_func
def gemm(A: T.Tensor(({a_shape}), "{dtype}"), B: T.Tensor(({b_shape}), "{dtype}"),
         C: T.Tensor((M, N), "float32")):
    with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 32), threads=128) as (bx, by):
        A_shared = T.alloc_shared(({a_tile}), "{dtype}")
        B_shared = T.alloc_shared(({b_tile}), "{dtype}")
        C_local = T.alloc_fragment((32, 32), "float32")
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, 16), num_stages=2):
            T.copy(A[{a_index}], A_shared)
            T.copy(B[{b_index}], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_A={trans_a}, transpose_B={trans_b})
        T.copy(C_local, C[by * 32, bx * 32])
)PY",
                     fmt::arg("dtype", dtype), fmt::arg("trans_a", trans_a ? "True" : "False"),
                     fmt::arg("trans_b", trans_b ? "True" : "False"),
                     fmt::arg("a_shape", trans_a ? "K, M" : "M, K"),
                     fmt::arg("b_shape", trans_b ? "N, K" : "K, N"),
                     fmt::arg("a_tile", trans_a ? "16, 32" : "32, 16"),
                     fmt::arg("b_tile", trans_b ? "32, 16" : "16, 32"),
                     fmt::arg("a_index", trans_a ? "k * 16, by * 32" : "by * 32, k * 16"),
                     fmt::arg("b_index", trans_b ? "bx * 32, k * 16" : "k * 16, bx * 32"));
}

Kernel compile_emulated(const std::string& source) {
  return compile(ir::parse_kernel_source(source), "metal", std::nullopt, exec::kEmulatorBackendName,
                 {{exec::kEmulatorRaceCheckConfigKey, true}});
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

class EmulatedMetal : public testing::EngineTest {
 protected:
  void SetUp() override {
    auto backend = exec::get_execution_backend(exec::kEmulatorBackendName);
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
    EngineTest::SetUp();
  }

  // Compiles `source`, lets `edit` change the kernel-cache entry's files, rebuilds its
  // device library with rebuild.sh and compiles again (a cache hit loading the edit).
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

  static std::string run_error(const Kernel& kernel, const std::string& source) {
    try {
      testing::run_and_compare(kernel, ir::parse_kernel_source(source).functions()[0]);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
};

struct GemmCase {
  std::string dtype;
  bool trans_a, trans_b;
};

class EmulatedSimdgroupGemm : public EmulatedMetal,
                              public ::testing::WithParamInterface<GemmCase> {};

TEST_P(EmulatedSimdgroupGemm, RunsSimdgroupMatricesAndMatchesTheInterpreter) {
  const GemmCase& c = GetParam();
  std::string source = gemm_source(c.dtype, c.trans_a, c.trans_b);
  Kernel kernel = compile_emulated(source);
  std::string call = fmt::format("tilec_simdgroup_gemm<{}, 2, 2, {}, {}>(",
                                 c.dtype == "float16" ? "half" : "float", c.trans_a, c.trans_b);
  EXPECT_NE(kernel.device_source().find(call), std::string::npos) << kernel.device_source();
  auto result = testing::run_and_compare(kernel, ir::parse_kernel_source(source).functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

INSTANTIATE_TEST_SUITE_P(Metal, EmulatedSimdgroupGemm,
                         ::testing::Values(GemmCase{"float16", false, false},
                                           GemmCase{"float16", true, true},
                                           GemmCase{"float32", false, true},
                                           GemmCase{"float32", true, false}),
                         [](const ::testing::TestParamInfo<GemmCase>& info) {
                           return info.param.dtype + (info.param.trans_a ? "_ta" : "") +
                                  (info.param.trans_b ? "_tb" : "");
                         });

TEST_F(EmulatedMetal, Bfloat16GemmsTakeTheSimtGemm) {
  std::string source = gemm_source("bfloat16", false, false);
  Kernel kernel = compile_emulated(source);
  EXPECT_EQ(kernel.device_source().find("tilec_simdgroup_gemm<"), std::string::npos);
  auto result = testing::run_and_compare(kernel, ir::parse_kernel_source(source).functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

TEST_F(EmulatedMetal, AWrongLaneMappingInTheShimFailsTheComparison) {
  std::string source = gemm_source("float16", false, false);
  Kernel kernel = edited(source, [](const fs::path& entry) {
    fs::path shim = entry / "emu_include/tilec/emu/metal.h";
    std::string text = read_file(shim);
    std::string right = "return 4 * (lane / 16) + (lane / 2) % 4;";
    ASSERT_NE(text.find(right), std::string::npos);
    // The load and the multiply disagree with the registers' layout: rows 0-3 and 4-7 swap.
    text.replace(text.find(right), right.size(), "return 4 * (1 - lane / 16) + (lane / 2) % 4;");
    write_file(shim, text);
  });
  auto result = testing::run_and_compare(kernel, ir::parse_kernel_source(source).functions()[0]);
  EXPECT_FALSE(result.ok);
}

TEST_F(EmulatedMetal, LanesPassingDifferentPointersToSimdgroupLoadAreAnError) {
  std::string source = gemm_source("float16", false, false);
  Kernel kernel = edited(source, [](const fs::path& entry) {
    std::string text = read_file(entry / "device.cu");
    std::string address = "TA ? a + (k * 8) * lda + i * 8 : a + (i * 8) * lda + k * 8, lda";
    ASSERT_NE(text.find(address), std::string::npos) << text;
    // Lane 5 of each simdgroup passes the next element's address.
    text.replace(text.find(address), address.size(),
                 "(tilec_emu::self().lane == 5 ? 1 : 0) + (TA ? a + (k * 8) * lda + i * 8 : a + "
                 "(i * 8) * lda + k * 8), lda");
    write_file(entry / "device.cu", text);
  });
  std::string error = run_error(kernel, source);
  EXPECT_NE(error.find("different pointers, row lengths or transposes"), std::string::npos)
      << error;
  EXPECT_NE(error.find("device.cu:"), std::string::npos) << error;
}

TEST_F(EmulatedMetal, ARemovedThreadgroupBarrierIsARace) {
  std::string source = gemm_source("float32", false, false);
  Kernel kernel = edited(source, [](const fs::path& entry) {
    std::string text = read_file(entry / "device.cu");
    // The barrier between the tiles' copies and the gemm that reads them.
    std::regex before_gemm(
        R"(threadgroup_barrier\(mem_flags::mem_threadgroup\);(\s*\(void\)\(tilec_simdgroup_gemm))");
    ASSERT_TRUE(std::regex_search(text, before_gemm)) << text;
    write_file(entry / "device.cu", std::regex_replace(text, before_gemm, "$1"));
  });
  std::string error = run_error(kernel, source);
  EXPECT_NE(error.find("shared-memory race"), std::string::npos) << error;
}

}  // namespace
}  // namespace tilec
