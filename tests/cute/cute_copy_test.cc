// The CuTe variant's T.copy (cute_copy.h): global <-> shared copies become cute::copy of a
// TiledCopy whose atom is as wide as the tile, the strides and the alignment allow
// (UniversalCopy<uint128_t> down to one element; SM80_CP_ASYNC_* inside the cp.async
// pipeline); edge tiles run the generic loop behind a block-uniform check; the generated
// source compiles through NVRTC and ptxas accepts it at sm_80 and sm_90.
#include "../engine/test_support.h"
#include "cute_test_support.h"
#include "sanitized_run.h"

#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cute/cute_copy.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/engine/initialize.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

// A pipelined gemm of 128 x 128 float16 matrices, or (pipelined=false) one tile staged
// through shared memory both ways.
std::string copy_kernel(const char* shape, int bm, int bk, const char* dtype, bool pipelined) {
  if (pipelined) {
    return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor(({0}), "{3}"), B: T.Tensor(({0}), "{3}"), C: T.Tensor(({0}), "float32")):
    with T.Kernel(T.ceildiv(128, 64), T.ceildiv(128, {1}), threads=128) as (bx, by):
        A_s = T.alloc_shared(({1}, {2}), "{3}")
        B_s = T.alloc_shared(({2}, 64), "{3}")
        C_l = T.alloc_fragment(({1}, 64), "float32")
        T.clear(C_l)
        for k in T.Pipelined(T.ceildiv(128, {2}), num_stages=3):
            T.copy(A[by * {1}, k * {2}], A_s)
            T.copy(B[k * {2}, bx * 64], B_s)
            T.gemm(A_s, B_s, C_l)
        T.copy(C_l, C[by * {1}, bx * 64])
)PY",
                       shape, bm, bk, dtype);
  }
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def stage(A: T.Tensor(({0}), "{3}"), B: T.Tensor(({0}), "{3}")):
    with T.Kernel(T.ceildiv({4}, {2}), T.ceildiv({4}, {1}), threads=128) as (bx, by):
        S = T.alloc_shared(({1}, {2}), "{3}")
        T.copy(A[by * {1}, bx * {2}], S)
        for i, j in T.Parallel({1}, {2}):
            S[i, j] = S[i, j] + S[i, j]
        T.copy(S, B[by * {1}, bx * {2}])
)PY",
                     shape, bm, bk, dtype, std::stoi(shape));
}

Kernel compile_cute(const std::string& text, const std::string& arch, const char* exec) {
  return compile(ir::parse_kernel_source(text), "cuda -arch=" + arch + " -keys=cuda,gpu,cute",
                 std::nullopt, exec);
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(CuteCopy, PipelinedGlobalToSharedCopiesAreAsyncTiledCopiesOf16Bytes) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  Kernel kernel = compile_cute(copy_kernel("128, 128", 64, 32, "float16", true), "sm_80", "source");
  const std::string& src = kernel.device_source();
  // A_s: 64 x 32 halves, 8 per 16-byte atom, 4 x 32 threads; B_s: 32 x 64, 8 x 16 threads.
  // Both in the cp.async commit group: the asynchronous form (last template argument 1);
  // both tiles row-major (layout codes 0: no GMMA on sm_80).
  EXPECT_TRUE(has(src, "tilec_cute::copy_tile<64, 32, 8, 32, 4, 0, 1, 0, 0, 1>(&A[")) << src;
  EXPECT_TRUE(has(src, "tilec_cute::copy_tile<32, 64, 8, 16, 8, 0, 1, 0, 0, 1>(&B[")) << src;
  EXPECT_TRUE(has(src, "Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, T>")) << src;
  EXPECT_TRUE(has(src, "Copy_Atom<UniversalCopy<uint_bit_t<8 * Bytes>>, T>")) << src;
  EXPECT_TRUE(has(src, "make_tiled_copy(Atom{}")) << src;
  // 128 x 128 tensors, 64 x 32 tiles at multiples of 8: whole and aligned but for the
  // pointers' own alignment, which only the run time knows.
  EXPECT_TRUE(has(src, "tilec_cute::aligned(&A[")) << src;
  // The commit and wait of the pipeline are still tilec's.
  EXPECT_TRUE(has(src, "tilec_cp_async_commit()")) << src;
}

TEST(CuteCopy, AtomsNarrowWhereStridesOrColumnsDoNotAllow16Bytes) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  struct Case {
    const char* shape;
    int rows, cols;
    const char* dtype;
    const char* call;
  };
  for (const Case& c : {
           // float32, 8 columns in a row of 256: 4 per 16 bytes, 2 x 64 threads.
           Case{"256, 256", 64, 8, "float32", "copy_tile<64, 8, 4, 64, 2, 0, 1, 0, 0, 0>"},
           // rows of 70 floats: 70 % 4 != 0, so 8-byte atoms (2 floats).
           Case{"70, 70", 16, 16, "float32", "copy_tile<16, 16, 2, 16, 8, 0, 1, 0, 0, 0>"},
           // rows of 35 floats: odd, one float per atom.
           Case{"35, 35", 8, 8, "float32", "copy_tile<8, 8, 1, 8, 8, 0, 1, 0, 0, 0>"},
           // float16 tile of 4 columns: 8 bytes, 4 halves per atom.
           Case{"64, 64", 16, 4, "float16", "copy_tile<16, 4, 4, 16, 1, 0, 1, 0, 0, 0>"},
       }) {
    SCOPED_TRACE(c.call);
    Kernel kernel =
        compile_cute(copy_kernel(c.shape, c.rows, c.cols, c.dtype, false), "sm_90", "source");
    const std::string& src = kernel.device_source();
    EXPECT_TRUE(has(src, std::string("tilec_cute::") + c.call)) << src;
    // Shared -> global goes the same way back.
    std::string back = std::string(c.call);
    const std::string to_shared = ", 0, 1, 0, 0, 0>";
    back.replace(back.find(to_shared), to_shared.size(), ", 1, 0, 0, 0, 0>");
    EXPECT_TRUE(has(src, back)) << src;
  }
}

TEST(CuteCopy, EdgeTilesRunTheGenericLoopBehindABlockUniformCheck) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  // 70 x 70 in 16 x 16 tiles: the blocks of the last row and column are partial.
  Kernel kernel = compile_cute(copy_kernel("70, 70", 16, 16, "float32", false), "sm_90", "source");
  std::string ir = ir::print(kernel.lowered());
  // The whole-tile condition (by * 16 + 16 <= 70), the alignment check, the cute::copy and
  // the generic loop's masked read in the else branch.
  EXPECT_TRUE(has(ir, "if by * 16 + 16 <= 70 and bx * 16 + 16 <= 70 and")) << ir;
  EXPECT_TRUE(has(ir, "\"tilec_cute_copy\", A[")) << ir;
  EXPECT_TRUE(has(ir, "\"tilec_cute_aligned\", A[")) << ir;
  EXPECT_TRUE(has(ir, "else")) << ir;
  const std::string& src = kernel.device_source();
  EXPECT_TRUE(has(src, "tilec_cute::copy_tile<")) << src;
  EXPECT_TRUE(has(src, "} else {")) << src;
}

TEST(CuteCopy, FragmentsAndConversionsKeepTheGenericCopy) {
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const char* text = R"PY(
import tilelang.language as T

@T.prim_func
def f(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        S = T.alloc_shared((64, 64), "float32")
        R = T.alloc_fragment((64, 64), "float32")
        T.copy(A, S)
        T.copy(S, R)
        T.copy(R, B)
)PY";
  Kernel kernel = compile_cute(text, "sm_90", "source");
  EXPECT_FALSE(has(kernel.device_source(), "tilec_cute::copy_tile<")) << kernel.device_source();
}

// The lines of `text` that contain `what`.
std::string lines_with(const std::string& text, const std::string& what) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (has(line, what)) out += line + "\n";
  return out;
}

// NVRTC compiles the copies and ptxas accepts the PTX: the pipelined gemm (cp.async atoms)
// and the staged tile with its edge blocks (plain atoms of 8 bytes and the generic loop).
TEST(CuteCopy, CompilesThroughNvrtcAndPtxasAtSm80AndSm90) {
  TILEC_SKIP_TOOLCHAIN_BOUND_WHEN_SANITIZED("NVRTC and ptxas on CuTe's headers");
  if (auto reason = cute::cutlass_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  if (auto reason = cuda::nvrtc_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  fs::path ptxas = cuda::cuda_toolkit_root() / "bin" / "ptxas";
  if (!fs::exists(ptxas)) GTEST_SKIP() << "no ptxas at " << ptxas;
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  for (const char* arch : {"sm_80", "sm_90"}) {
    for (bool pipelined : {true, false}) {
      SCOPED_TRACE(fmt::format("{} {}", arch, pipelined ? "pipelined gemm" : "edge tiles"));
      std::string text = pipelined ? copy_kernel("128, 128", 64, 32, "float16", true)
                                   : copy_kernel("70, 70", 16, 16, "float32", false);
      Kernel kernel = compile_cute(text, arch, "auto");
      ASSERT_EQ(kernel.execution_backend(), "nvrtc");
      testing::BuiltPtx built = testing::built_ptx(kernel);
      const std::string& ptx_text = built.text;
      if (pipelined) {
        EXPECT_TRUE(has(ptx_text, "cp.async.cg.shared.global")) << "the async atom";
        EXPECT_TRUE(has(ptx_text, "cp.async.commit_group"));
      } else {
        // The atom's 8-byte moves (the generic loop's are ld.global.nc.v2.u32).
        EXPECT_TRUE(has(ptx_text, "ld.global.nc.u64") || has(ptx_text, "ld.global.u64"))
            << "8-byte atoms:\n"
            << lines_with(ptx_text, "ld.global");
      }
      // The pipelined gemm on sm_90 is a GMMA gemm, built for sm_90a.
      EXPECT_EQ(built.arch, pipelined && std::string(arch) == "sm_90" ? "sm_90a" : arch);
      auto checked = testing::ptxas_check(built);
      ASSERT_TRUE(checked.has_value());
      EXPECT_EQ(checked->exit_code, 0) << checked->output;
    }
  }
}

}  // namespace
}  // namespace tilec
