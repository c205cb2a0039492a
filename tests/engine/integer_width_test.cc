// docs/semantics.md "Integer widths": loop variables are typed from their bounds
// (int64 past int32), the checker and the interpreter refuse a variable that cannot
// hold its loop, a grid past a target's per-axis limit is a located compile-time
// error, and a loop of 2^31 + 5 iterations counts every one of them on each CPU pair
// (once per pair: the one test here that runs 2^31 iterations).
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/builder.h"
#include "tilec/ir/check.h"
#include "tilec/ir/source_error.h"
#include "tilec/ir/visitor.h"
#include "tilec/target/target.h"
#include "tilec/transform/grid_limits.h"

#include <map>

namespace tilec {
namespace {

constexpr const char* kLoops = R"(import tilelang.language as T

N = T.symbolic("N")


@T.prim_func
def loops(Out: T.Tensor((N,), "int64")):
    with T.Kernel(1, threads=1) as bx:
        for small in T.serial(100):
            Out[0] = Out[0] + small
        for huge in T.serial(10**12):
            Out[0] = Out[0] + 1
        for strided in T.serial(0, 10**12, 2**30):
            Out[0] = Out[0] + strided
        for near in T.serial(2**31 - 4, 2**31 - 1):
            Out[0] = Out[0] + near
        for symbolic in T.serial(N):
            Out[0] = Out[0] + symbolic
        for symbolic_step in T.serial(0, N, 4):
            Out[0] = Out[0] + symbolic_step
)";

constexpr const char* kCount = R"(import tilelang.language as T

K = 2**31 + 5


@T.prim_func
def count(Out: T.Tensor((1,), "int64")):
    with T.Kernel(1, threads=1) as bx:
        acc = T.alloc_var("int64")
        acc = 0
        for k in T.serial(K):
            acc = acc + 1
        Out[0] = acc
)";

std::map<std::string, ir::DataType> loop_var_types(const ir::IRModule& mod) {
  std::map<std::string, ir::DataType> out;
  ir::post_order_visit(mod.functions()[0]->body, [&](const ir::Stmt* s, const ir::Expr*) {
    if (auto* f = s ? s->as<ir::ForNode>() : nullptr) out[f->var.name()] = f->var->dtype;
  });
  return out;
}

TEST(IntegerWidths, LoopVariablesHoldEveryValueTheyTake) {
  auto types =
      loop_var_types(ir::parse_kernel_source(kLoops, {.filename = "loops.py", .defines = {}}));
  EXPECT_EQ(types.at("small"), ir::DataType::Int32());
  EXPECT_EQ(types.at("huge"), ir::DataType::Int64());
  EXPECT_EQ(types.at("strided"), ir::DataType::Int64());
  // The last increment reaches 2^31 - 1 exactly: still int32.
  EXPECT_EQ(types.at("near"), ir::DataType::Int32());
  EXPECT_EQ(types.at("symbolic"), ir::DataType::Int32());
  // A step of 4 may jump past the int32 limit below a symbolic bound.
  EXPECT_EQ(types.at("symbolic_step"), ir::DataType::Int64());
}

TEST(IntegerWidths, TheCheckerRefusesALoopVariableTooNarrowForItsBounds) {
  using namespace ir;
  Buffer out = make_buffer("Out", {make_int(1)}, DataType::Int64());
  Var k = make_var("k", DataType::Int32());
  Stmt loop = for_loop(k, make_int(0), make_int(int64_t(1) << 40, DataType::Int64()),
                       store(out, {make_int(0)}, cast(DataType::Int64(), k)));
  PrimFunc f = make_prim_func("narrow", {make_buffer_param(out)}, loop);
  std::vector<Diagnostic> errors = check_module(IRModule({f}));
  ASSERT_EQ(errors.size(), 1u) << "the check accepted an int32 variable over 2^40";
  EXPECT_NE(errors[0].message.find("loop variable 'k' is int32"), std::string::npos)
      << errors[0].message;
}

TEST(IntegerWidths, TheInterpreterRefusesAVariableTooNarrowRatherThanWrapping) {
  using namespace ir;
  Buffer out = make_buffer("Out", {make_int(1)}, DataType::Int64());
  Var k = make_var("k", DataType::Int32());
  // 2^31 - 2 .. 2^31 + 1: an int32 k would wrap to negative values.
  Stmt loop = for_loop(k, make_int((int64_t(1) << 31) - 2, DataType::Int64()),
                       make_int((int64_t(1) << 31) + 2, DataType::Int64()),
                       store(out, {make_int(0)}, cast(DataType::Int64(), k)));
  PrimFunc f = make_prim_func("narrow", {make_buffer_param(out)}, loop);
  HostTensor t(DataType::Int64(), {1});
  try {
    interpret(f, {t.view()});
    FAIL() << "the interpreter wrapped the loop variable; Out[0] = " << t.get(0);
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("past what int32 holds"), std::string::npos) << e.what();
  }
}

TEST(IntegerWidths, AGridAxisPastTheTargetLimitIsALocatedError) {
  constexpr const char* kGridY = R"(import tilelang.language as T


@T.prim_func
def grid_y(Out: T.Tensor((16,), "int32")):
    with T.Kernel(1, 70000, threads=32) as (bx, by):
        if by < 16:
            Out[by] = Out[by] + 1
)";
  ir::IRModule mod = ir::parse_kernel_source(kGridY, {.filename = "grid_y.py", .defines = {}});
  // The CPU runs 70000 blocks along y; CUDA stops at 65535.
  transform::check_grid_limits(mod, target::Target::parse("c"));
  try {
    transform::check_grid_limits(mod, target::Target::parse("cuda"));
    FAIL() << "cuda accepted 70000 blocks along y";
  } catch (const ir::LocatedError& e) {
    EXPECT_EQ(e.span().line, 6);
    std::string what = e.what();
    EXPECT_NE(what.find("70000 blocks along y"), std::string::npos) << what;
    EXPECT_NE(what.find("at most 65535 (max_grid_y)"), std::string::npos) << what;
  }
  // A target attribute lowers the limit.
  EXPECT_THROW(transform::check_grid_limits(mod, target::Target::parse("c -max_grid_y=100")),
               ir::LocatedError);
}

class IntegerWidthsCount : public testing::EngineTest,
                           public ::testing::WithParamInterface<testing::CpuBackend> {};

TEST_P(IntegerWidthsCount, ALoopOfTwoToTheThirtyOnePlusFiveRunsEveryIteration) {
  TILEC_SKIP_UNLESS_RUNNABLE(GetParam());
  ir::IRModule mod = ir::parse_kernel_source(kCount, {.filename = "count.py", .defines = {}});
  Kernel kernel = testing::compile_on(mod, GetParam());
  ir::HostTensor out(ir::DataType::Int64(), {1});
  kernel.call({out.view()});
  EXPECT_EQ(int64_t(out.get(0)), (int64_t(1) << 31) + 5);
}

INSTANTIATE_TEST_SUITE_P(CpuBackends, IntegerWidthsCount,
                         ::testing::ValuesIn(testing::cpu_backends()),
                         [](const ::testing::TestParamInfo<testing::CpuBackend>& info) {
                           return info.param.name();
                         });

}  // namespace
}  // namespace tilec
