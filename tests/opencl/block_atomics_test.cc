// Atomic updates on a real OpenCL device (PoCL here) match the interpreter wherever they
// stand: in block-level code, which means "once per block" although every thread of the
// block executes it (TileLang's atomic_addx4_16bit_program: T.atomic_addx4 straight in
// a T.Kernel body), with return_prev=True values every thread needs, inside T.Parallel
// nests split over the threads, and in per-thread code (T.get_thread_binding), where a
// statement means "once in every thread". Scalar, x2 and x4 adds, max and min, over
// float16, bfloat16, float32 and int32 elements.
#include "../engine/test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/opencl/opencl_execution_backend.h"

#include <fmt/format.h>

namespace tilec {
namespace {

class BlockAtomicsOpenCL : public testing::EngineTest {
 protected:
  void SetUp() override {
    testing::EngineTest::SetUp();
    const auto& backend = opencl::opencl_execution_backend();
    if (!backend->available()) GTEST_SKIP() << backend->unavailable_reason();
  }
  // Compiles `source` for opencl and checks every function against the interpreter.
  void expect_matches(const std::string& source) {
    ir::IRModule mod = ir::parse_kernel_source("import tilelang.language as T\n" + source);
    Kernel kernel = compile(mod, "opencl", std::nullopt, "opencl");
    for (const auto& f : mod.functions()) {
      auto result = testing::run_and_compare(kernel, f);
      EXPECT_TRUE(result.ok) << f->name << ": " << result.detail << "\n" << kernel.device_source();
    }
  }
};

TEST_F(BlockAtomicsOpenCL, VectorAddsInBlockLevelCodeRunOncePerBlock) {
  // TileLang's atomic_addx4_16bit_program, and atomic_addx2 beside it.
  std::string source;
  for (const char* dtype : {"float16", "bfloat16", "float32", "int32"}) {
    for (int offset : {0, 4}) {
      for (int threads : {2, 128}) {
        source += fmt::format(R"PY(
@T.prim_func
def x4_{0}_{1}_{2}(A: T.Tensor((16,), "{0}"), B: T.Tensor((16,), "{0}")):
    with T.Kernel(1, threads={2}):
        T.atomic_addx4(B[{1}], A[{1}])

@T.prim_func
def x2_{0}_{1}_{2}(A: T.Tensor((16,), "{0}"), B: T.Tensor((16,), "{0}")):
    with T.Kernel(1, threads={2}):
        T.atomic_addx2(B[{1} + 2], A[{1}])
)PY",
                              dtype, offset, threads);
      }
    }
  }
  expect_matches(source);
}

TEST_F(BlockAtomicsOpenCL, ScalarAddMaxMinInBlockLevelCode) {
  std::string source;
  for (const char* dtype : {"float16", "bfloat16", "float32", "int32"}) {
    source += fmt::format(R"PY(
@T.prim_func
def scalar_{0}(A: T.Tensor((8,), "{0}"), B: T.Tensor((8,), "{0}"), C: T.Tensor((2,), "{0}"),
               D: T.Tensor((2,), "{0}")):
    with T.Kernel(8, threads=64) as bx:
        T.atomic_add(B[bx], A[bx])
        T.atomic_max(C[bx % 2], A[bx])
        for k in T.serial(2):
            T.atomic_min(D[k], A[bx])
)PY",
                          dtype);
  }
  expect_matches(source);
}

TEST_F(BlockAtomicsOpenCL, ReturnedPreviousValuesReachEveryThread) {
  // The previous value bound to a name, kept in a local, and branched on: thread 0
  // performs the update and every thread sees its result.
  std::string source;
  for (const char* dtype : {"float32", "int32"}) {
    source += fmt::format(R"PY(
@T.prim_func
def prev_{0}(A: T.Tensor((4,), "{0}"), B: T.Tensor((4,), "{0}"), P: T.Tensor((4, 32), "{0}"),
             Q: T.Tensor((4,), "{0}")):
    with T.Kernel(4, threads=32) as bx:
        prev = T.atomic_add(B[bx], A[bx], return_prev=True)
        v = T.alloc_local((1,), "{0}")
        v[0] = T.atomic_max(B[bx], A[bx], return_prev=True)
        for i in T.Parallel(32):
            P[bx, i] = prev + v[0]
        for k in T.serial(3):
            again = T.atomic_add(B[bx], A[bx], return_prev=True)
            Q[bx] = again
)PY",
                          dtype);
  }
  expect_matches(source);
}

TEST_F(BlockAtomicsOpenCL, SplitNestsAndPerThreadCodeKeepTheirMeaning) {
  // In a T.Parallel nest each element is one thread's; in per-thread code every thread
  // runs each statement, a thread-independent one too (so C[0] gains A[0] 16 times).
  std::string source;
  for (const char* dtype : {"float16", "float32", "int32"}) {
    source += fmt::format(R"PY(
@T.prim_func
def parallel_{0}(A: T.Tensor((4, 64), "{0}"), B: T.Tensor((64,), "{0}")):
    with T.Kernel(4, threads=32) as bx:
        for i in T.Parallel(64):
            T.atomic_add(B[i], A[bx, i])
        for j in T.Parallel(16):
            T.atomic_addx4(B[j * 4], A[bx, j * 4])

@T.prim_func
def threads_{0}(A: T.Tensor((16, 4), "{0}"), B: T.Tensor((4, 4), "{0}"), C: T.Tensor((2,), "{0}")):
    with T.Kernel(2, threads=16) as bx:
        t = T.get_thread_binding()
        T.atomic_addx4(B[t % 4, 0:4], A[t, 0:4])
        T.atomic_add(C[0], A[0, 0])
        if t < 2:
            T.atomic_max(C[1], A[t, bx])
)PY",
                          dtype);
  }
  expect_matches(source);
}

}  // namespace
}  // namespace tilec
