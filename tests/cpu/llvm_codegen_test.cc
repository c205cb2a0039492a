// The `llvm` device and host codegens on lowered kernels: what the IR says (noalias
// buffers, explicit vectors for a vectorized loop of constant extent, loop metadata
// where the body cannot be vectorized here, the host entry's runtime checks), and the
// errors for modules that were not lowered.
#include "tilec/cpu/pipeline.h"
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

#ifdef TILEC_HAVE_LLVM
#include "tilec/cpu/llvm_codegen.h"
#endif

namespace tilec::cpu {
namespace {

#ifdef TILEC_HAVE_LLVM

constexpr const char* kScale = R"(
import tilelang.language as T
@T.prim_func
def scale(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32")):
    with T.Kernel(4, threads=64) as bx:
        for i in T.Parallel(64):
            B[bx * 64 + i] = A[bx * 64 + i] * 2.0
)";

// tanh has no vector form here, so this loop is left to LLVM's loop vectorizer.
constexpr const char* kTanh = R"(
import tilelang.language as T
@T.prim_func
def act(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32")):
    with T.Kernel(4, threads=64) as bx:
        for i in T.Parallel(64):
            B[bx * 64 + i] = T.tanh(A[bx * 64 + i])
)";

constexpr const char* kGuarded = R"(
import tilelang.language as T
N = T.symbolic("N")
@T.prim_func
def guarded(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < N:
                B[bx * 64 + i] = A[bx * 64 + i] + 1.0
)";

ir::IRModule lowered(const char* source) {
  return make_cpu_pipeline().lower(ir::parse_kernel_source(source), target::Target::parse("llvm"));
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(LlvmCodegen, DeviceIrHasNoaliasBuffersAndExplicitVectors) {
  target::Target llvm = target::Target::parse("llvm");
  backend::CodeArtifact device = generate_llvm_device(lowered(kScale), llvm);
  EXPECT_EQ(device.format, "llvm");
  EXPECT_EQ(device.entry_points, std::vector<std::string>{"scale_kernel_task"});
  EXPECT_TRUE(contains(device.source, "noalias")) << device.source;
  EXPECT_TRUE(contains(device.source, "<64 x float>")) << device.source;  // one vector body
  EXPECT_FALSE(contains(device.source, "llvm.loop.vectorize.enable")) << device.source;
}

constexpr const char* kTileGemm = R"(
import tilelang.language as T
@T.prim_func
def mm(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, 1, threads=128) as (bx, by):
        A_s = T.alloc_shared((64, 32), "float32")
        B_s = T.alloc_shared((32, 64), "float32")
        C_l = T.alloc_fragment((64, 64), "float32")
        T.clear(C_l)
        for k in T.Pipelined(2, num_stages=2):
            T.copy(A[0, k * 32], A_s)
            T.copy(B[k * 32, 0], B_s)
            T.gemm(A_s, B_s, C_l)
        T.copy(C_l, C[0, 0])
)";

// A contiguous access in a vector body takes its address from lane 0's index computed as
// a scalar: an index built as a vector and its lane 0 extracted kept the GEMM
// micro-kernel's address arithmetic in vector registers, and spilled its accumulators.
TEST(LlvmCodegen, ContiguousVectorAccessesAddressFromAScalarIndex) {
  for (const char* source : {kScale, kTileGemm}) {
    backend::CodeArtifact device =
        generate_llvm_device(lowered(source), target::Target::parse("llvm"));
    EXPECT_TRUE(contains(device.source, "load <")) << device.source;
    EXPECT_FALSE(contains(device.source, "extractelement")) << device.source;
  }
}

// A guard per lane masks the vector loads and stores of a vector where some lanes pass
// it. Masked stores are microcoded on AMD Zen, so a vector whose lanes all pass (every
// vector but the last) stores unmasked, and one where none does skips the branch.
TEST(LlvmCodegen, AGuardPerLaneMasksOnlyAVectorWithSomeLanesPassing) {
  backend::CodeArtifact device =
      generate_llvm_device(lowered(kGuarded), target::Target::parse("llvm"));
  for (const char* part :
       {"@llvm.masked.load.v64f32", "@llvm.masked.store.v64f32", "@llvm.vector.reduce.and.v64i1",
        "@llvm.vector.reduce.or.v64i1", "store <64 x float>"})
    EXPECT_TRUE(contains(device.source, part)) << part << "\n" << device.source;
}

TEST(LlvmCodegen, ABodyWithoutAVectorFormLeavesTheLoopToLlvmsVectorizer) {
  backend::CodeArtifact device =
      generate_llvm_device(lowered(kTanh), target::Target::parse("llvm"));
  EXPECT_TRUE(contains(device.source, "llvm.loop.vectorize.enable")) << device.source;
  EXPECT_TRUE(contains(device.source, "llvm.loop.parallel_accesses")) << device.source;
  EXPECT_TRUE(contains(device.source, "llvm.access.group")) << device.source;
}

TEST(LlvmCodegen, HostEntryChecksArgumentsThroughTheRuntime) {
  backend::CodeArtifact host = generate_llvm_host(lowered(kGuarded), target::Target::parse("llvm"));
  EXPECT_EQ(host.format, "llvm");
  EXPECT_EQ(host.entry_points, (std::vector<std::string>{"guarded", "tilec_abi_version"}));
  for (const char* helper : {"tilec_rt_tensor_arg", "tilec_rt_bind_dim", "tilec_rt_fail",
                             "guarded_kernel_task", "expects 2 argument(s) (A, B)"}) {
    EXPECT_TRUE(contains(host.source, helper)) << helper << "\n" << host.source;
  }
}

TEST(LlvmCodegen, UnloweredModulesAreAClearError) {
  ir::IRModule raw = ir::parse_kernel_source(kScale);
  target::Target llvm = target::Target::parse("llvm");
  try {
    generate_llvm_device(raw, llvm);
    FAIL() << "expected an error";
  } catch (const ir::IRError& e) {
    EXPECT_TRUE(contains(e.what(), "lowering pipeline")) << e.what();
  }
  EXPECT_THROW(generate_llvm_host(raw, llvm), ir::IRError);
  // A plain function pointer, so every manifest declaring it shares one codegen.
  // The codegen outlives the pointer into its std::function's storage.
  auto codegen = make_llvm_host_codegen();
  auto* fn =
      codegen.build.target<backend::CodeArtifact (*)(const ir::IRModule&, const target::Target&)>();
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(*fn, &generate_llvm_host);
}

#else

TEST(LlvmCodegen, NotBuilt) {
  GTEST_SKIP() << "this build has no LLVM (-DTILEC_LLVM=OFF)";
}

#endif

}  // namespace
}  // namespace tilec::cpu
