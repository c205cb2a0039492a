// Integer division and modulo by a runtime divisor inside a compiled CPU kernel:
// a zero divisor is reported as an error from the call (the interpreter raises
// one too) instead of trapping the process; a non-zero one matches the interpreter.
#include "test_support.h"

#include <cstdint>
#include <vector>

namespace tilec {
namespace {

using testing::EngineTest;
using testing::run_and_compare;

constexpr const char* kDivideSource = R"(import tilelang.language as T

N = T.symbolic("N")


@T.prim_func
def divide(A: T.Tensor((N,), "int32"), Q: T.Tensor((N,), "int32"), R: T.Tensor((N,), "int32"), d: T.int32):
    with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
        for i in T.Parallel(32):
            if bx * 32 + i < N:
                Q[bx * 32 + i] = A[bx * 32 + i] // d
                R[bx * 32 + i] = A[bx * 32 + i] % d
)";

class DivisionByZero : public EngineTest {};

TEST_F(DivisionByZero, ZeroDivisorIsAnErrorNotACrash) {
  ir::IRModule mod = ir::parse_kernel_source(kDivideSource);
  Kernel kernel = compile(mod, "c", std::nullopt, "native");
  std::vector<int32_t> a(100, 7), q(100, 0), r(100, 0);
  try {
    kernel.call_raw({RawTensor{a.data(), {100}}, RawTensor{q.data(), {100}},
                     RawTensor{r.data(), {100}}, int64_t{0}});
    FAIL() << "a zero divisor did not raise";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("integer division by zero in kernel 'divide'"),
              std::string::npos)
        << e.what();
  }
  // The interpreter rejects the same call.
  ir::RandomArgs inputs = ir::make_random_args(mod.functions()[0], {{"N", 100}, {"d", 0}}, 3);
  EXPECT_THROW(ir::interpret(mod.functions()[0], inputs.args), std::exception);
}

TEST_F(DivisionByZero, NonZeroDivisorMatchesTheInterpreter) {
  ir::IRModule mod = ir::parse_kernel_source(kDivideSource);
  Kernel kernel = compile(mod, "c", std::nullopt, "native");
  for (int64_t d : {3, -7, 1}) {
    SCOPED_TRACE(d);
    auto result = run_and_compare(kernel, mod.functions()[0], {{"N", 100}, {"d", d}});
    EXPECT_TRUE(result.ok) << result.detail;
  }
}

TEST_F(DivisionByZero, KernelStillRunsAfterAZeroDivisor) {
  ir::IRModule mod = ir::parse_kernel_source(kDivideSource);
  Kernel kernel = compile(mod, "c", std::nullopt, "native");
  std::vector<int32_t> a(40, -7), q(40, 0), r(40, 0);
  EXPECT_THROW(kernel.call_raw({RawTensor{a.data(), {40}}, RawTensor{q.data(), {40}},
                                RawTensor{r.data(), {40}}, int64_t{0}}),
               std::exception);
  kernel.call_raw({RawTensor{a.data(), {40}}, RawTensor{q.data(), {40}}, RawTensor{r.data(), {40}},
                   int64_t{2}});
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(q[i], -4) << i;  // floor division, as in Python
    EXPECT_EQ(r[i], 1) << i;
  }
}

}  // namespace
}  // namespace tilec
