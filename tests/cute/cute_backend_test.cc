// The CuTe variant: chosen on kind `cuda` by the key `cute` (the cuda backend declines
// it), reusing the cuda pipeline object; its device code includes CuTe and compiles
// through NVRTC with the CUTLASS include path, and ptxas accepts the PTX: every example
// for sm_90, the gemms and edge tiles for sm_80 (a CuTe compile takes NVRTC seconds).
// Its own T.gemm is a cute::gemm on a TiledMMA (tensor-core mma.sync in the PTX for
// float16/bfloat16, UniversalFMA for float32) whose C partition is the accumulator's
// layout (tilec's closed form of it is checked against CuTe in cute_partition_test);
// shapes it cannot tile go to the cuda backend's gemms. Without the headers nvrtc is
// unavailable to it and `auto` falls back to source, saying why.
#include "../engine/test_support.h"
#include "build_paths.h"
#include "cute_test_support.h"
#include "sanitized_run.h"

#include "tilec/backend/module.h"
#include "tilec/cuda/backend.h"
#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cuda/shared_swizzle.h"
#include "tilec/cute/backend.h"
#include "tilec/cute/cute_gemm.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/engine/initialize.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCuteTarget = "cuda -arch=sm_90 -keys=cuda,gpu,cute";

std::string example(const char* name) {
  return (fs::path(TILEC_SOURCE_DIR) / "examples" / name).string();
}

TEST(CuteVariant, SelectedByTheCuteKeyAndSharesTheCudaPipeline) {
  initialize();
  backend::BackendModulePtr cute = backend::get_backend("cute");
  backend::BackendModulePtr cuda = backend::get_backend("cuda");
  target::Target with_key = target::Target::parse(kCuteTarget);
  target::Target plain = target::Target::parse("cuda -arch=sm_90");
  EXPECT_TRUE(cute->matches(with_key));
  EXPECT_FALSE(cute->matches(plain));
  EXPECT_FALSE(cuda->matches(with_key));
  // The same pipeline: cuda's name and passes, in order.
  const auto& passes = cute->get_pipeline(with_key).passes();
  const auto& cuda_passes = cuda->get_pipeline(plain).passes();
  EXPECT_EQ(cute->get_pipeline(with_key).name(), cuda::cuda_pipeline().name());
  ASSERT_EQ(passes.size(), cuda_passes.size());
  for (size_t i = 0; i < passes.size(); ++i) EXPECT_EQ(passes[i].name, cuda_passes[i].name);
  auto context = backend::create_backend_context(with_key, std::nullopt, "source");
  EXPECT_EQ(context.name(), "cute");
  auto plain_context = backend::create_backend_context(plain, std::nullopt, "source");
  EXPECT_EQ(plain_context.name(), "cuda");
}

struct CuteCase {
  std::string file;
  std::string arch;
  std::map<std::string, std::string> defines;
  std::string in_source;        // must appear in the device source ("" none)
  std::string in_ptx;           // must appear in NVRTC's PTX ("" none)
  std::string built_arch = "";  // the arch the PTX targets ("" the target's)
};

// Every example at sm_90 (gemm.py's float16 and bfloat16 gemms on SM90's GMMA atoms, built
// for sm_90a); at sm_80 the gemms (both tensor-core atoms, the FMA one, B transposed) and
// the edge tiles. One CuTe compile takes NVRTC several seconds.
std::vector<CuteCase> cute_cases() {
  std::vector<CuteCase> cases;
  std::vector<std::string> files;
  for (const auto& item : fs::directory_iterator(fs::path(TILEC_SOURCE_DIR) / "examples"))
    if (item.path().extension() == ".py") files.push_back(item.path().filename().string());
  std::sort(files.begin(), files.end());
  const std::string mma = "mma.sync.aligned.m16n8k16.row.col.f32.";
  const std::string wgmma = "wgmma.mma_async.sync.aligned.m64n64k16.f32.";
  // gemm.py's 64 x 64 x 32 tile on one warpgroup: A_s K-major with the 64-byte swizzle
  // (code 3), B_s (32 x 64) MN-major with the 128-byte one (code 8).
  const std::string gmma_call = "tilec_cute::gemm_ss<3, 1, 1, 64, 64, 32, 0, 0, 0, 64, 3, 8>";
  for (const auto& f : files) {
    CuteCase c{f, "sm_90", {}, "", ""};
    if (f == "gemm.py") c = {f, "sm_90", {}, gmma_call, wgmma + "f16.f16", "sm_90a"};
    cases.push_back(c);
  }
  cases.push_back({"gemm.py",
                   "sm_90",
                   {{"dtype", "bfloat16"}},
                   "tilec_cute::gemm_ss<4, 1, 1, 64, 64, 32, 0, 0, 0, 64, 3, 8>",
                   wgmma + "bf16.bf16",
                   "sm_90a"});
  cases.push_back({"gemm.py",
                   "sm_80",
                   {},
                   "tilec_cute::gemm_ss<0, 2, 2, 64, 64, 32, 0, 0, 0, 8, 0, 0>",
                   mma + "f16.f16.f32"});
  cases.push_back({"gemm.py",
                   "sm_80",
                   {{"dtype", "bfloat16"}},
                   "tilec_cute::gemm_ss<1, ",
                   mma + "bf16.bf16.f32"});
  // gemm_nt accumulates in its own dtype: in float32 it is a CuTe gemm with B transposed.
  cases.push_back({"gemm_nt.py", "sm_80", {{"dtype", "float32"}}, "0, 1, 0, 8, 0, 0>(", ""});
  cases.push_back({"gemm_fp32.py", "sm_80", {}, "tilec_cute::gemm_ss<2, ", ""});
  cases.push_back({"edge_tiles.py", "sm_80", {}, "", ""});
  return cases;
}

std::string case_name(const CuteCase& c) {
  std::string name = fs::path(c.file).stem().string();
  for (const auto& [k, v] : c.defines) name += "_" + v;
  name += "_" + c.arch;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

void PrintTo(const CuteCase& c, std::ostream* out) {
  *out << case_name(c);
}

class CuteExamples : public ::testing::TestWithParam<CuteCase> {};

TEST_P(CuteExamples, CompileThroughNvrtcWithCutlassAndPtxasAcceptsThePtx) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (auto reason = cuda::nvrtc_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const CuteCase& c = GetParam();
  // gemm.py in its own dtype (its SM80 mma and SM90 GMMA paths) stays sanitized; the other
  // cases differ only in what NVRTC compiles.
  if (c.file != "gemm.py" || !c.defines.empty())
    TILEC_SKIP_TOOLCHAIN_BOUND_WHEN_SANITIZED("NVRTC and ptxas on CuTe's headers");
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  std::string target = "cuda -arch=" + c.arch + " -keys=cuda,gpu,cute";
  Kernel kernel = compile(ir::parse_kernel_file(example(c.file.c_str()), c.defines), target,
                          std::nullopt, "auto");
  EXPECT_EQ(kernel.context().name(), "cute");
  EXPECT_EQ(kernel.execution_backend(), "nvrtc");
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("#include <cute/tensor.hpp>"), std::string::npos) << src;
  EXPECT_NE(src.find(cute::cutlass_include_dir()->string()), std::string::npos)
      << "the header directory is part of the source, so of the cache key";
  if (!c.in_source.empty()) {
    EXPECT_NE(src.find(c.in_source), std::string::npos) << src;
  }
  testing::BuiltPtx built = testing::built_ptx(kernel);
  ASSERT_TRUE(fs::exists(built.ptx));
  EXPECT_EQ(built.arch, c.built_arch.empty() ? c.arch : c.built_arch);
  EXPECT_NE(built.text.find(".target " + built.arch), std::string::npos);
  if (!c.in_ptx.empty()) {
    EXPECT_NE(built.text.find(c.in_ptx), std::string::npos) << c.in_ptx;
  }
  auto checked = testing::ptxas_check(built);
  if (!checked) GTEST_SKIP() << "no ptxas under " << cuda::cuda_toolkit_root();
  EXPECT_EQ(checked->exit_code, 0) << checked->output;
}

INSTANTIATE_TEST_SUITE_P(Examples, CuteExamples, ::testing::ValuesIn(cute_cases()),
                         [](const ::testing::TestParamInfo<CuteCase>& info) {
                           return case_name(info.param);
                         });

// The layout the gemm's TiledMMA gives its accumulator, as the lowered IR records it.
std::string layout_of(const Kernel& kernel, const std::string& fragment) {
  for (const auto& f : kernel.lowered().functions()) {
    auto it = f->attrs.find("tilec.layout." + fragment);
    if (it != f->attrs.end()) return std::get<std::string>(it->second);
  }
  return "";
}

Kernel compile_source(const std::string& text, const std::string& target = kCuteTarget,
                      const char* execution_backend = "source") {
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  return compile(ir::parse_kernel_source(text), target, std::nullopt, execution_backend);
}

constexpr const char* kCuteSm80 = "cuda -arch=sm_80 -keys=cuda,gpu,cute";

std::string gemm_kernel(int threads, int bm, int bn, int bk, const char* dtype, const char* accum) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((128, 128), "{3}"), B: T.Tensor((128, 128), "{3}"), C: T.Tensor((128, 128), "float32")):
    with T.Kernel(T.ceildiv(128, {1}), T.ceildiv(128, {0}), threads={5}) as (bx, by):
        A_s = T.alloc_shared(({0}, {2}), "{3}")
        B_s = T.alloc_shared(({2}, {1}), "{3}")
        C_l = T.alloc_fragment(({0}, {1}), "{4}")
        T.clear(C_l)
        for k in T.Pipelined(T.ceildiv(128, {2}), num_stages=2):
            T.copy(A[by * {0}, k * {2}], A_s)
            T.copy(B[k * {2}, bx * {1}], B_s)
            T.gemm(A_s, B_s, C_l)
        for i, j in T.Parallel({0}, {1}):
            C_l[i, j] = C_l[i, j] * 2.0
        T.copy(C_l, C[by * {0}, bx * {1}])
)PY",
                     bm, bn, bk, dtype, accum, threads);
}

TEST(CuteGemm, TheAccumulatorTakesTheTiledMmaPartitionAndItsLoopsFollowIt) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel = compile_source(gemm_kernel(128, 64, 64, 32, "float16", "float32"), kCuteSm80);
  std::string layout = layout_of(kernel, "C_l");
  EXPECT_NE(layout.find("cute TiledMMA SM80_16x8x16_F32F16F16F32_TN over a 2x2 grid of warps "
                        "over 128 threads"),
            std::string::npos)
      << layout;
  EXPECT_NE(layout.find("32 registers per thread"), std::string::npos) << layout;
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("make_tiled_mma(typename Op::type{}"), std::string::npos);
  EXPECT_NE(src.find("partition_shape_C(tiled_mma"), std::string::npos);
  EXPECT_NE(src.find("gemm(tiled_mma, tCrA, tCrB, tCrC)"), std::string::npos);
  // The operands are this iteration's stage of the cp.async pipeline's 2-stage tiles.
  EXPECT_NE(src.find("tilec_cute::gemm_ss<0, 2, 2, 64, 64, 32, 0, 0, 0, 8, 0, 0>(&A_s[k % 2 * 64 "
                     "* 32], &B_s[k % 2 * 32 * 64], &C_l[0], tilec_cute::flat_thread())"),
            std::string::npos)
      << src;
  EXPECT_EQ(src.find("TILEC_GMMA_OP"), std::string::npos) << "sm_80 has no warpgroup MMA";
  // T.clear and the element-wise update run over the thread's 32 registers of the
  // partition; the copy out moves its 16 runs of 2 consecutive columns as 8-byte vectors.
  size_t loops = 0;
  for (const char* r : {"r", "r_1", "r_2", "r_3", "r_4", "r_5", "r_6", "r_7"}) {
    if (src.find(fmt::format("for (int32_t {0} = 0; {0} < 32; ++{0})", r)) != std::string::npos)
      ++loops;
  }
  EXPECT_EQ(loops, 2u) << src;
  EXPECT_NE(src.find("for (int32_t q = 0; q < 16; ++q)"), std::string::npos) << src;
  EXPECT_NE(src.find("*(uint2*)(C + "), std::string::npos) << src;
  // The barriers around the gemm: before it (the copies into A_s/B_s) and before the next
  // iteration's copies (the gemm read them).
  EXPECT_NE(src.find("__syncthreads();"), std::string::npos);
}

// On sm_90 a float16 gemm of whole warpgroups runs on GMMA atoms: wgmma reads both tiles
// from shared memory in GMMA's canonical layouts, which every access of the tiles takes.
TEST(CuteGemm, Sm90RunsWarpgroupMmaOnTilesInGmmaLayouts) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel = compile_source(gemm_kernel(128, 64, 64, 32, "float16", "float32"));
  std::string layout = layout_of(kernel, "C_l");
  EXPECT_NE(layout.find("cute TiledMMA SM90_64x64x16_F32F16F16_SS<GMMA::Major::K, "
                        "GMMA::Major::MN> over a 1x1 grid of warpgroups over 128 threads"),
            std::string::npos)
      << layout;
  const std::string& src = kernel.device_source();
  // The gemm: A_s 64 x 32 K-major, 64-byte swizzle (3); B_s 32 x 64 MN-major, 128-byte (8).
  EXPECT_NE(src.find("tilec_cute::gemm_ss<3, 1, 1, 64, 64, 32, 0, 0, 0, 64, 3, 8>(&A_s["),
            std::string::npos)
      << src;
  for (const char* step :
       {"thr_mma.make_fragment_A(tCsA)", "fence.proxy.async.shared::cta", "warpgroup_arrive();",
        "warpgroup_commit_batch();", "warpgroup_wait<0>();", "SM90_64x##N##x16_F32F16F16_SS<A, B>",
        "tile_to_shape(typename GmmaAtom<T, Code>::type{}"}) {
    EXPECT_NE(src.find(step), std::string::npos) << step;
  }
  // The cp.async copies into the tiles write them in the same layouts, and the tiles start
  // at the 1024 bytes the 128-byte swizzle's atom needs.
  EXPECT_NE(src.find("tilec_cute::copy_tile<64, 32, 8, 32, 4, 0, 1, 0, 3, 1>(&A["),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("tilec_cute::copy_tile<32, 64, 8, 16, 8, 0, 1, 0, 8, 1>(&B["),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("&A_s[tilec_cute::smem_offset<3, 64, 32, 2>("), std::string::npos) << src;
  EXPECT_NE(src.find("__shared__ __align__(1024) uint16_t A_s["), std::string::npos) << src;
  // The accumulator's loops follow GMMA's C layout: warp w holds rows 16w .. 16w + 15.
  EXPECT_NE(src.find("tid / 32 * 16 + tid % 32 / 4 + r / 2 % 2 * 8"), std::string::npos) << src;
}

// Two warpgroups over a 128 x 128 tile: one along M each, the 64 x 128 atom; transposed
// operands swap the majors (A stored K x M is MN-major, B stored N x K is K-major). NVRTC
// builds it for sm_90a and ptxas accepts the wgmma.
TEST(CuteGemm, GmmaTakesEveryOperandMajorAndBuildsForSm90a) {
  TILEC_SKIP_TOOLCHAIN_BOUND_WHEN_SANITIZED("NVRTC and ptxas on CuTe's headers");
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (auto reason = cuda::nvrtc_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  Kernel kernel = compile(ir::parse_kernel_source(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((256, 256), "bfloat16"), B: T.Tensor((256, 256), "bfloat16"), C: T.Tensor((256, 256), "float32")):
    with T.Kernel(2, 2, threads=256) as (bx, by):
        A_s = T.alloc_shared((64, 128), "bfloat16")
        B_s = T.alloc_shared((128, 64), "bfloat16")
        C_l = T.alloc_fragment((128, 128), "float32")
        T.clear(C_l)
        for k in T.Pipelined(4, num_stages=2):
            T.copy(A[k * 64, by * 128], A_s)
            T.copy(B[bx * 128, k * 64], B_s)
            T.gemm(A_s, B_s, C_l, transpose_A=True, transpose_B=True)
        T.copy(C_l, C[by * 128, bx * 128])
)PY"),
                          kCuteTarget, std::nullopt, "nvrtc");
  EXPECT_NE(layout_of(kernel, "C_l")
                .find("SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::MN, GMMA::Major::K> over a "
                      "2x1 grid of warpgroups"),
            std::string::npos)
      << layout_of(kernel, "C_l");
  // A_s (K x M = 64 x 128) MN-major, 128-byte swizzle: 8; B_s (N x K = 128 x 64) K-major: 4.
  EXPECT_NE(kernel.device_source().find(
                "tilec_cute::gemm_ss<4, 2, 1, 128, 128, 64, 1, 1, 0, 128, 8, 4>(&A_s["),
            std::string::npos);
  testing::BuiltPtx built = testing::built_ptx(kernel);
  EXPECT_EQ(built.arch, "sm_90a");
  EXPECT_NE(built.text.find("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"),
            std::string::npos);
  EXPECT_NE(built.text.find("fence.proxy.async.shared::cta"), std::string::npos);
  auto checked = testing::ptxas_check(built);
  if (!checked) GTEST_SKIP() << "no ptxas under " << cuda::cuda_toolkit_root();
  EXPECT_EQ(checked->exit_code, 0) << checked->output;
}

// GMMA needs whole warpgroups and warpgroup-sized tiles; other float16 gemms on sm_90 keep
// SM80's atom, and sm_80 never gets GMMA.
TEST(CuteGemm, GmmaNeedsWholeWarpgroupsAndSm90) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  struct Case {
    int threads, bm, bn;
    const char* target;
    const char* why;
  };
  for (const Case& c : {Case{64, 32, 64, kCuteTarget, "two warps, not a warpgroup"},
                        Case{128, 32, 64, kCuteTarget, "32 rows, under GMMA's 64"},
                        Case{192, 64, 96, kCuteTarget, "six warps, not whole warpgroups"},
                        Case{128, 64, 64, kCuteSm80, "sm_80"}}) {
    SCOPED_TRACE(c.why);
    Kernel kernel =
        compile_source(gemm_kernel(c.threads, c.bm, c.bn, 32, "float16", "float32"), c.target);
    EXPECT_NE(layout_of(kernel, "C_l").find("SM80_16x8x16_F32F16F16F32_TN"), std::string::npos)
        << layout_of(kernel, "C_l");
    EXPECT_EQ(kernel.device_source().find("smem_offset"), std::string::npos);
  }
}

// Every other access of a GMMA tile takes its layout: the element-wise update of B_s (16-byte
// vector moves through smem_offset), the copy of A_s into a fragment, and the cute::copy
// filling each tile (its layout code set to the tile's).
TEST(CuteGemm, EveryAccessOfAGmmaTileGoesThroughItsLayout) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel = compile_source(R"PY(
import tilelang.language as T

@T.prim_func
def mixed(A: T.Tensor((256, 256), "float16"), B: T.Tensor((256, 256), "float16"), C: T.Tensor((256, 256), "float32"), D: T.Tensor((256, 256), "float16")):
    with T.Kernel(4, 4, threads=128) as (bx, by):
        A_s = T.alloc_shared((64, 64), "float16")
        B_s = T.alloc_shared((64, 64), "float16")
        A_f = T.alloc_fragment((64, 64), "float16")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.clear(C_l)
        for k in T.Pipelined(4, num_stages=2):
            T.copy(A[by * 64, k * 64], A_s)
            T.copy(B[k * 64, bx * 64], B_s)
            for i, j in T.Parallel(64, 64):
                B_s[i, j] = B_s[i, j] * 2.0
            T.gemm(A_s, B_s, C_l)
        T.copy(A_s, A_f)
        T.copy(A_f, D[by * 64, bx * 64])
        T.copy(C_l, C[by * 64, bx * 64])
)PY");
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("tilec_cute::gemm_ss<3, 1, 1, 64, 64, 64, 0, 0, 0, 64, 4, 8>"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("tilec_cute::copy_tile<64, 64, 8, 16, 8, 0, 1, 0, 4, 0>(&A["),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("*(uint4*)(B_s + (tilec_cute::smem_offset<8, 64, 64, 2>(i * 64 + j0))) ="),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("= A_s[tilec_cute::smem_offset<4, 64, 64, 2>("), std::string::npos) << src;
  // No access of either tile is left in the plain layout.
  for (const char* plain : {"A_s[i", "B_s[i", "(B_s + (i", "(A_s + (i"})
    EXPECT_EQ(src.find(plain), std::string::npos) << plain;
}

// A tile that two GMMA gemms would read in different layouts keeps the first one's: the
// second gemm takes SM80's atom and reads the tile in that layout.
TEST(CuteGemm, ATileKeepsTheFirstGmmaLayoutAndLaterGemmsReadIt) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel = compile_source(R"PY(
import tilelang.language as T

@T.prim_func
def two(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16"), C: T.Tensor((64, 64), "float32"), D: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_s = T.alloc_shared((64, 64), "float16")
        B_s = T.alloc_shared((64, 64), "float16")
        C_l = T.alloc_fragment((64, 64), "float32")
        D_l = T.alloc_fragment((64, 64), "float32")
        T.copy(A, A_s)
        T.copy(B, B_s)
        T.gemm(A_s, B_s, C_l, clear_accum=True)
        T.gemm(A_s, B_s, D_l, transpose_A=True, clear_accum=True)
        T.copy(C_l, C)
        T.copy(D_l, D)
)PY",
                                 kCuteTarget, "auto");
  EXPECT_NE(layout_of(kernel, "C_l").find("SM90_64x64x16_F32F16F16_SS"), std::string::npos);
  EXPECT_NE(layout_of(kernel, "D_l").find("SM80_16x8x16_F32F16F16F32_TN"), std::string::npos)
      << layout_of(kernel, "D_l");
  const std::string& src = kernel.device_source();
  // A_s K-major 128-byte (4), B_s MN-major 128-byte (8), for both gemms.
  EXPECT_NE(src.find("tilec_cute::gemm_ss<3, 1, 1, 64, 64, 64, 0, 0, 1, 64, 4, 8>"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("tilec_cute::gemm_ss<0, 2, 2, 64, 64, 64, 1, 0, 1, 8, 4, 8>"),
            std::string::npos)
      << src;
  if (kernel.execution_backend() != "nvrtc") GTEST_SKIP() << cuda::nvrtc_unavailable_reason();
  // NVRTC builds both helpers over the swizzled tiles, and ptxas accepts them.
  testing::BuiltPtx built = testing::built_ptx(kernel);
  EXPECT_NE(built.text.find("wgmma.mma_async"), std::string::npos);
  EXPECT_NE(built.text.find("mma.sync.aligned.m16n8k16"), std::string::npos);
  auto checked = testing::ptxas_check(built);
  if (!checked) GTEST_SKIP() << "no ptxas under " << cuda::cuda_toolkit_root();
  EXPECT_EQ(checked->exit_code, 0) << checked->output;
}

// A registered layout call asking for a code that names no layout of its tile is an error
// that says so (cuda.swizzle_shared never guesses a layout).
TEST(CuteGemm, ALayoutCodeThatNamesNoLayoutIsAnError) {
  initialize();
  ir::Buffer tile = ir::make_buffer("A_s", {ir::make_int(64 * 32)}, ir::DataType::Float16(),
                                    ir::StorageScope::kShared);
  std::vector<ir::Expr> args = {ir::load(tile, {ir::make_int(0)}),
                                ir::load(tile, {ir::make_int(0)}),
                                ir::load(tile, {ir::make_int(0)})};
  // atom 3, 1 x 1, 64 x 64 x 32, no transposes, clear, N 64, A code 4 (needs 64 columns: A
  // has 32), B code 0.
  for (int64_t v : {3, 1, 1, 64, 64, 32, 0, 0, 1, 64, 4, 0}) args.push_back(ir::make_int(v));
  ir::Stmt body = ir::evaluate(ir::call_extern(ir::DataType::Int32(), cute::kCuteGemmCall, args));
  ir::IRModule mod({ir::make_prim_func("k", {}, ir::allocate(tile, body))});
  try {
    cuda::swizzle_shared(mod);
    FAIL() << "code 4 is no layout of a 64 x 32 tile";
  } catch (const ir::IRError& e) {
    EXPECT_NE(std::string(e.what()).find("asks for layout code 4 of shared tile 'A_s'"),
              std::string::npos)
        << e.what();
  }
}

TEST(CuteGemm, Float32UsesUniversalFma) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel = compile_source(gemm_kernel(128, 64, 64, 16, "float32", "float32"));
  EXPECT_NE(layout_of(kernel, "C_l")
                .find("UniversalFMA<float, float, float, float> over a 8x16 "
                      "grid of threads"),
            std::string::npos)
      << layout_of(kernel, "C_l");
  EXPECT_NE(kernel.device_source().find("tilec_cute::gemm_ss<2, 8, 16, 64, 64, 16,"),
            std::string::npos);
}

TEST(CuteGemm, ShapesTheTiledMmaCannotTileGoToAnotherGemm) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  struct Case {
    int threads, bm, bn, bk;
    const char* dtype;
    const char* accum;
    const char* why;
  };
  for (const Case& c : {Case{96, 64, 64, 32, "float16", "float32", "3 warps tile no grid"},
                        Case{128, 64, 64, 8, "float16", "float32", "K not a multiple of 16"},
                        Case{120, 64, 64, 32, "float16", "float32", "not whole warps"},
                        Case{128, 64, 64, 32, "float16", "float16", "a float16 accumulator"}}) {
    SCOPED_TRACE(c.why);
    Kernel kernel = compile_source(gemm_kernel(c.threads, c.bm, c.bn, c.bk, c.dtype, c.accum));
    EXPECT_EQ(layout_of(kernel, "C_l").find("cute TiledMMA"), std::string::npos)
        << layout_of(kernel, "C_l");
    EXPECT_EQ(kernel.device_source().find("tilec_cute::gemm_ss"), std::string::npos);
  }
}

TEST(CuteGemm, PlainCudaKeepsItsOwnGemm) {
  Kernel kernel =
      compile(ir::parse_kernel_source(gemm_kernel(128, 64, 64, 32, "float16", "float32")),
              "cuda -arch=sm_80", std::nullopt, "source");
  EXPECT_EQ(kernel.context().name(), "cuda");
  EXPECT_EQ(kernel.device_source().find("tilec_cute"), std::string::npos);
}

TEST(CuteVariant, Float16GoesThroughCuteNumericTypes) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel =
      compile(ir::parse_kernel_file(example("gemm.py")), kCuteTarget, std::nullopt, "source");
  EXPECT_NE(kernel.device_source().find("cute::half_t::bitcast"), std::string::npos);
  EXPECT_NE(kernel.device_source().find("extern \"C\" __global__"), std::string::npos);
}

TEST(CuteVariant, WithoutTheHeadersAutoFallsBackToSourceAndCodegenSaysWhy) {
  testing::ScopedEnv missing("TILEC_CUTLASS_INCLUDE", "/nonexistent/cutlass/include");
  EXPECT_NE(cute::cutlass_unavailable_reason().find("/nonexistent/cutlass/include"),
            std::string::npos);
  initialize();
  auto context =
      backend::create_backend_context(target::Target::parse(kCuteTarget), std::nullopt, "auto");
  EXPECT_EQ(context.execution_backend().name, "source");
  try {
    compile(ir::parse_kernel_file(example("vector_add.py")), kCuteTarget, std::nullopt, "auto");
    FAIL() << "generating CuTe code without the headers must fail";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("scripts/setup.sh"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilec
