// A gemm accumulator copied into the A operand of a second gemm (FlashAttention's
// T.copy(acc_s, acc_s_cast)): the two uses need different layouts (the accumulator's
// micro-tile; every thread reading all of the operand), so the operand is staged in
// shared memory, a layout conversion the lowered IR records. Run on PoCL against the
// interpreter; skips with the reason when no OpenCL device is found.
#include "../cli_support.h"
#include "../engine/test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"
#include "tilec/opencl/opencl_execution_backend.h"

#include <fmt/format.h>

namespace tilec {
namespace {

class LayoutConversion : public testing::EngineTest {
 protected:
  void SetUp() override {
    const auto& backend = opencl::opencl_execution_backend();
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
  }
};

// O = (relu(Q @ K^T) in dtype) @ V over two key blocks, the second gemm's A operand a
// fragment written from the first gemm's accumulator, in a loop (so the staged tile is
// rewritten after the gemm read it: a barrier on each side).
std::string two_gemm_source(const std::string& dtype, const std::string& write) {
  return fmt::format(R"PY(
import tilelang.language as T

@T.prim_func
def two_gemm(Q: T.Tensor((64, 32), "{dt}"), K: T.Tensor((64, 32), "{dt}"),
             V: T.Tensor((64, 32), "{dt}"), O: T.Tensor((64, 32), "float32")):
    with T.Kernel(2, threads=64) as bx:
        Q_s = T.alloc_shared((32, 32), "{dt}")
        K_s = T.alloc_shared((32, 32), "{dt}")
        V_s = T.alloc_shared((32, 32), "{dt}")
        acc_s = T.alloc_fragment((32, 32), "float32")
        acc_s_cast = T.alloc_fragment((32, 32), "{dt}")
        acc_o = T.alloc_fragment((32, 32), "float32")
        T.copy(Q[bx * 32, 0], Q_s)
        T.clear(acc_o)
        for k in T.serial(2):
            T.copy(K[k * 32, 0], K_s)
            T.copy(V[k * 32, 0], V_s)
            T.gemm(Q_s, K_s, acc_s, transpose_B=True, clear_accum=True)
            for i, j in T.Parallel(32, 32):
                acc_s[i, j] = T.max(acc_s[i, j], 0.0) * 0.125
{write}
            T.gemm(acc_s_cast, V_s, acc_o)
        T.copy(acc_o, O[bx * 32, 0])
)PY",
                     fmt::arg("dt", dtype), fmt::arg("write", write));
}

const char* kCopy = "            T.copy(acc_s, acc_s_cast)";
const char* kParallel =
    "            for i, j in T.Parallel(32, 32):\n"
    "                acc_s_cast[i, j] = acc_s[i, j]";

TEST_F(LayoutConversion, GemmAccumulatorFeedsTheNextGemmThroughShared) {
  for (const char* dtype : {"float32", "float16"}) {
    for (const char* write : {kCopy, kParallel}) {
      SCOPED_TRACE(fmt::format("{} {}", dtype, write));
      std::string source = two_gemm_source(dtype, write);
      ir::IRModule mod = ir::parse_kernel_source(source);
      Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
      std::string lowered = ir::print(kernel.lowered());
      EXPECT_NE(lowered.find(fmt::format("acc_s_cast[32, 32] {}: staged in shared memory ({} "
                                         "bytes), a layout conversion",
                                         dtype, std::string(dtype) == "float32" ? 4096 : 2048)),
                std::string::npos)
          << lowered;
      EXPECT_NE(lowered.find("would also replicate 'acc_s'"), std::string::npos) << lowered;
      // A shared tile (flattened by then).
      EXPECT_NE(lowered.find(fmt::format("acc_s_cast = T.alloc_shared((1024,), \"{}\")", dtype)),
                std::string::npos)
          << lowered;
      // Barriers only where a hazard is: after Q_s is written; in the loop, before the
      // second gemm reads acc_s_cast (and V_s), and before V_s is overwritten (its last
      // reader, the second gemm, came after the other barrier): none for acc_s_cast's
      // own rewrite, which the V_s barrier already orders.
      size_t barriers = 0;
      for (size_t at = lowered.find("tvm_storage_sync"); at != std::string::npos;
           at = lowered.find("tvm_storage_sync", at + 1))
        ++barriers;
      EXPECT_EQ(barriers, 3u) << lowered;
      // The accumulator keeps its micro-tile layout.
      EXPECT_NE(lowered.find("acc_s[32, 32] float32: micro-tile"), std::string::npos) << lowered;
      auto result = testing::run_and_compare(kernel, mod.functions().front());
      EXPECT_TRUE(result.ok) << result.detail << "\n" << kernel.device_source();
    }
  }
}

// With cuda's register budget (1020 bytes per thread) cumsum's tile and dequant_gemm's
// dequantized B would be replicated beyond it, so they are staged in shared memory (as
// on cuda, where no GPU runs them here): the same lowering runs on PoCL and matches.
TEST_F(LayoutConversion, FragmentsTooLargeToReplicateRunFromShared) {
  for (const char* file : {"cumsum.py", "dequant_gemm.py"}) {
    SCOPED_TRACE(file);
    ir::IRModule mod = ir::parse_kernel_file(testing::example(file));
    Kernel kernel = compile(mod, "opencl -private_bytes_per_thread=1020", std::nullopt, "opencl");
    std::string lowered = ir::print(kernel.lowered());
    EXPECT_NE(lowered.find("staged in shared memory"), std::string::npos) << lowered;
    EXPECT_NE(lowered.find("above the budget of 1020"), std::string::npos) << lowered;
    auto result = testing::run_and_compare(kernel, mod.functions().front());
    EXPECT_TRUE(result.ok) << result.detail << "\n" << kernel.device_source();
  }
}

}  // namespace
}  // namespace tilec
