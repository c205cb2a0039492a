// Front-end constructs of TileLang's real kernels (issue 11, third part): T.Pipelined's
// order/stage/sync/group schedule recorded for the loop (pipeline_schedule.h), the
// vectorized atomics T.atomic_addx2/x4, TVM script's if-frames and multi-context `with`,
// T.Kernel without grid extents, and the Python a factory computes its constants with
// (tilelang.math, int.bit_length, isinstance, `in`, DataType(...).bits, math.*, T.clamp
// keywords). Each: the IR it lowers to, and the located error for what it rejects.
#include "tilec/frontend/parser.h"
#include "tilec/ir/pipeline_schedule.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/structural.h"
#include "tilec/ir/visitor.h"

#include <gtest/gtest.h>

namespace tilec::ir {
namespace {

const char* kHeader = "import tilelang\nimport tilelang.language as T\n";
constexpr int kHeaderLines = 2;

IRModule parse(const std::string& body, std::map<std::string, std::string> defines = {}) {
  ParseOptions options;
  options.filename = "k.py";
  options.defines = std::move(defines);
  return parse_kernel_source(std::string(kHeader) + body, options);
}

SourceError error_of(const std::string& body, std::map<std::string, std::string> defines = {}) {
  try {
    parse(body, std::move(defines));
  } catch (const SourceError& e) {
    return e;
  }
  ADD_FAILURE() << "parsed without error:\n" << body;
  return SourceError("", {}, "none", "", "");
}

// Every node of kind T in the first function's body, in visiting order.
template <class T>
std::vector<const T*> nodes_of(const IRModule& m) {
  struct Collect : StmtVisitor {
    std::vector<const T*> found;
    void visit_for(const ForNode* op) override {
      if constexpr (std::is_same_v<T, ForNode>) found.push_back(op);
      StmtVisitor::visit_for(op);
    }
    void visit_if(const IfNode* op) override {
      if constexpr (std::is_same_v<T, IfNode>) found.push_back(op);
      StmtVisitor::visit_if(op);
    }
    void visit_call(const CallNode* op) override {
      if constexpr (std::is_same_v<T, CallNode>) found.push_back(op);
      StmtVisitor::visit_call(op);
    }
    void visit_kernel(const KernelNode* op) override {
      if constexpr (std::is_same_v<T, KernelNode>) found.push_back(op);
      StmtVisitor::visit_kernel(op);
    }
  } c;
  c.visit(m.functions().at(0)->body);
  return c.found;
}

const ForNode* pipelined_loop(const IRModule& m) {
  for (const ForNode* f : nodes_of<ForNode>(m))
    if (f->for_kind == ForKind::kPipelined) return f;
  return nullptr;
}
// The schedule of the first pipelined loop (the only one in these kernels).
PipelineSchedule schedule_of(const IRModule& m) {
  std::optional<PipelineSchedule> s = pipeline_schedule(m.functions().at(0), 0);
  EXPECT_TRUE(s.has_value());
  return s.value_or(PipelineSchedule{});
}

// A gemm loop in TileLang's test_tilelang_language_pipeline.py shape; ORDER / STAGE are
// substituted.
std::string pipelined_gemm(const std::string& schedule, const std::string& body_extra = "") {
  return R"(
def matmul(order=[0, 1, 2], stage=[0, 0, 1], trans_A=False):
    @T.prim_func
    def main(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16"),
             C: T.Tensor((64, 64), "float32")):
        with T.Kernel(2, 2, threads=128) as (bx, by):
            A_shared = T.alloc_shared((32, 16), "float16")
            B_shared = T.alloc_shared((16, 32), "float16")
            C_local = T.alloc_fragment((32, 32), "float32")
            T.clear(C_local)
            for k in T.Pipelined(4, )" +
         schedule + R"():
)" + body_extra +
         R"(                if trans_A:
                    T.copy(A[k * 16, by * 32], A_shared)
                else:
                    T.copy(A[by * 32, k * 16], A_shared)
                T.copy(B[k * 16, bx * 32], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * 32, bx * 32])
    return main
)";
}

TEST(PipelineSchedule, OrderAndStageFromFactoryParametersAreRecorded) {
  IRModule m = parse(pipelined_gemm("order=order, stage=stage"));
  const ForNode* loop = pipelined_loop(m);
  ASSERT_NE(loop, nullptr);
  PipelineSchedule s = schedule_of(m);
  EXPECT_EQ(s.order, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(s.stage, (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(loop->num_stages, 2);  // max(stage) + 1 without num_stages=
  EXPECT_EQ(std::get<std::string>(m.functions()[0]->attrs.at("tilec.pipeline_schedule.0")),
            "order=[0, 1, 2], stage=[0, 0, 1]");
}

TEST(PipelineSchedule, DefinesLiteralsSyncAndGroup) {
  IRModule m = parse(pipelined_gemm("order=order, stage=stage, num_stages=3, "
                                    "sync=[[0, 2]], group=[[0, 1], [2]]"),
                     {{"order", "[2, 0, 1]"}, {"stage", "[1, 1, 0]"}});
  const ForNode* loop = pipelined_loop(m);
  ASSERT_NE(loop, nullptr);
  PipelineSchedule s = schedule_of(m);
  EXPECT_EQ(s.order, (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(loop->num_stages, 3);  // an explicit depth wins
  EXPECT_EQ(s.sync, (std::vector<std::vector<int64_t>>{{0, 2}}));
  EXPECT_EQ(s.group, (std::vector<std::vector<int64_t>>{{0, 1}, {2}}));
}

TEST(PipelineSchedule, PrintsAndParsesBackToTheSameIR) {
  IRModule m = parse(pipelined_gemm("order=[1, 0, 2], stage=[0, 0, 1], group=[[0, 1]]"));
  std::string printed = print(m);
  EXPECT_NE(printed.find("order=[1, 0, 2], stage=[0, 0, 1], group=[[0, 1]]"), std::string::npos)
      << printed;
  IRModule again = parse_kernel_source(printed);
  EXPECT_TRUE(structural_equal(m, again)) << printed;
  IRModule other = parse(pipelined_gemm("order=[0, 1, 2], stage=[0, 0, 1], group=[[0, 1]]"));
  EXPECT_FALSE(structural_equal(m, other));  // the schedule is part of the loop
}

TEST(PipelineSchedule, ScalarBindingsTakeNoEntryButOldListsWithThemAreAccepted) {
  const std::string binding = "                base = k * 16\n";
  EXPECT_NO_THROW(parse(pipelined_gemm("order=[0, 1, 2], stage=[0, 0, 1]", binding)));
  IRModule old = parse(pipelined_gemm("order=[0, 1, 2, 3], stage=[0, 0, 0, 1]", binding));
  EXPECT_EQ(schedule_of(old).order.size(), 4u);
}

TEST(PipelineSchedule, BadListsAreLocatedErrors) {
  SourceError e = error_of(pipelined_gemm("order=[0, 1], stage=[0, 1]"));
  EXPECT_NE(std::string(e.what()).find("order has 2 entries but the loop body has 3"),
            std::string::npos)
      << e.what();
  EXPECT_EQ(e.span().line, 11 + kHeaderLines);
  e = error_of(pipelined_gemm("order=[0, 0, 2], stage=[0, 0, 1]"));
  EXPECT_NE(std::string(e.what()).find("not a permutation"), std::string::npos) << e.what();
  e = error_of(pipelined_gemm("order=[0, 1, 2]"));
  EXPECT_NE(std::string(e.what()).find("order is given without stage"), std::string::npos)
      << e.what();
  e = error_of(pipelined_gemm("order=[0, 1, 2], stage=[0, -1, 1]"));
  EXPECT_NE(std::string(e.what()).find("stage[1] = -1"), std::string::npos) << e.what();
  e = error_of(pipelined_gemm("group=[[0, 3]]"));
  EXPECT_NE(std::string(e.what()).find("group[0][1] = 3 is outside [0, 3)"), std::string::npos)
      << e.what();
  e = error_of(pipelined_gemm("group=[[0, 1], [1]]"));
  EXPECT_NE(std::string(e.what()).find("already in another group"), std::string::npos) << e.what();
  e = error_of(pipelined_gemm("order=3, stage=[0]"));
  EXPECT_NE(std::string(e.what()).find("T.Pipelined's order is a list of integers"),
            std::string::npos)
      << e.what();
  e = error_of(pipelined_gemm("order=[0, 1.5, 2], stage=[0, 0, 1]"));
  EXPECT_NE(std::string(e.what()).find("an entry is not"), std::string::npos) << e.what();
}

TEST(PipelineSchedule, NestedLoopsAreCountedOuterFirst) {
  IRModule m = parse(R"(
@T.prim_func
def f(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=16):
        S = T.alloc_shared((16,), "float32")
        for r in T.Pipelined(2, num_stages=1):
            for k in T.Pipelined(4, order=[1, 0], stage=[0, 1]):
                T.copy(A[k * 16], S)
                T.copy(S, B[k * 16])
)");
  EXPECT_FALSE(pipeline_schedule(m.functions()[0], 0));
  ASSERT_TRUE(pipeline_schedule(m.functions()[0], 1));
  EXPECT_EQ(pipeline_schedule(m.functions()[0], 1)->order, (std::vector<int64_t>{1, 0}));
}

TEST(PipelineScheduleRules, FormatParsesBack) {
  PipelineSchedule s{{2, 0, 1}, {0, 0, 1}, {{0, 2}}, {{0, 1}, {2}}};
  std::string text = format_pipeline_schedule(s);
  EXPECT_EQ(text, "order=[2, 0, 1], stage=[0, 0, 1], sync=[[0, 2]], group=[[0, 1], [2]]");
  EXPECT_EQ(parse_pipeline_schedule(text), s);
  EXPECT_EQ(parse_pipeline_schedule(""), PipelineSchedule{});
  EXPECT_THROW(parse_pipeline_schedule("order=[1,"), IRError);
  EXPECT_THROW(parse_pipeline_schedule("depth=[1]"), IRError);
}

TEST(PipelineScheduleRules, CountAndValidate) {
  PipelineSchedule s;
  EXPECT_FALSE(pipeline_schedule_error(s, 0));
  s.order = {1, 0};
  s.stage = {0, 1};
  EXPECT_FALSE(pipeline_schedule_error(s, 2));
  EXPECT_EQ(s.depth(), 2);
  EXPECT_TRUE(pipeline_schedule_error(s, 3));
  s.sync = {{5}};
  EXPECT_TRUE(pipeline_schedule_error(s, 2));
}

const std::string kVectorAtomics = R"(
@T.prim_func
def f(A: T.Tensor((8, 8), "float32"), B: T.Tensor((8, 8), "float16"),
      I: T.Tensor((4,), "int32"), V: T.Tensor((4, 4), "float32"), D: T.Tensor((8, 4), "float32")):
    with T.Kernel(1, threads=4):
        t = T.get_thread_binding()
        for i, j in T.Parallel(8, 4):
            T.atomic_addx2(B[i, j * 2], A[i, j * 2])
        T.atomic_addx4(D[I[t], 0:4], V[t, 0:4])
)";

TEST(VectorAtomics, EachLaneIsOneAtomicAddIntoConsecutiveElements) {
  IRModule m = parse(kVectorAtomics);
  std::vector<const CallNode*> atomics;
  for (const CallNode* c : nodes_of<CallNode>(m))
    if (c->call_kind == CallKind::kAtomic) atomics.push_back(c);
  ASSERT_EQ(atomics.size(), 2u);
  for (const CallNode* a : atomics) EXPECT_EQ(a->name, "atomic_add");
  EXPECT_EQ(atomics[0]->dtype, DataType::Float16());  // the value converts to B's dtype
  std::vector<int64_t> lanes;
  for (const ForNode* f : nodes_of<ForNode>(m))
    if (f->for_kind == ForKind::kUnrolled) lanes.push_back(*as_const_int(f->end));
  EXPECT_EQ(lanes, (std::vector<int64_t>{2, 4}));
}

TEST(VectorAtomics, WrongSlicesAndReturnPrevAreLocatedErrors) {
  SourceError e = error_of(R"(
@T.prim_func
def f(V: T.Tensor((4, 4), "float32"), D: T.Tensor((8, 4), "float32")):
    with T.Kernel(1, threads=4):
        T.atomic_addx4(D[0, 0:2], V[0, 0:4])
)");
  EXPECT_NE(std::string(e.what()).find("must span 4 elements in the last dimension"),
            std::string::npos)
      << e.what();
  EXPECT_EQ(e.span().line, 5 + kHeaderLines);
  e = error_of(R"(
@T.prim_func
def f(V: T.Tensor((4, 4), "float16"), D: T.Tensor((8, 4), "float16")):
    with T.Kernel(1, threads=4):
        T.atomic_addx2(D[0, 0], V[0, 0], return_prev=True)
)");
  EXPECT_NE(std::string(e.what()).find("return_prev=True returns a 2-lane vector"),
            std::string::npos)
      << e.what();
}

TEST(KernelWithoutGrid, IsOneBlock) {
  IRModule m = parse(R"(
@T.prim_func
def f(A: T.Tensor((8,), "float32")):
    with T.Kernel(threads=8):
        A[T.get_thread_binding()] = 1.0
)");
  auto kernels = nodes_of<KernelNode>(m);
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(kernels[0]->grid.size(), 1u);
  EXPECT_EQ(*as_const_int(kernels[0]->grid[0]), 1);
}

TEST(IfFrames, ThenElseAndMultiContextWithLowerToIfs) {
  IRModule m = parse(R"(
@T.prim_func
def f(A: T.Tensor((16,), "float32"), B: T.Tensor((16,), "float32")):
    with T.Kernel(1, threads=16):
        for i in T.Parallel(16):
            with T.If(A[i] <= 0):
                with T.Then():
                    B[i] = 0.0
                with T.Else():
                    B[i] = A[i]
            with T.If(i < 4), T.Then():
                B[i] = 1.0
)");
  auto ifs = nodes_of<IfNode>(m);
  ASSERT_EQ(ifs.size(), 2u);
  EXPECT_TRUE(ifs[0]->else_case.defined());
  EXPECT_FALSE(ifs[1]->else_case.defined());
}

TEST(IfFrames, MisplacedFramesAreLocatedErrors) {
  SourceError e = error_of(R"(
@T.prim_func
def f(A: T.Tensor((16,), "float32")):
    with T.Kernel(1, threads=16):
        with T.Then():
            A[0] = 1.0
)");
  EXPECT_NE(std::string(e.what()).find("belongs directly inside `with T.If(cond):`"),
            std::string::npos)
      << e.what();
  EXPECT_EQ(e.span().line, 5 + kHeaderLines);
  e = error_of(R"(
@T.prim_func
def f(A: T.Tensor((16,), "float32")):
    with T.Kernel(1, threads=16):
        with T.If(A[0] > 0):
            A[0] = 1.0
)");
  EXPECT_NE(std::string(e.what()).find("only `with T.Then():` and `with T.Else():`"),
            std::string::npos)
      << e.what();
  e = error_of(R"(
@T.prim_func
def f(A: T.Tensor((16,), "float32")):
    with T.Kernel(1, threads=16):
        with T.If(A[0] > 0):
            with T.Else():
                A[0] = 1.0
)");
  EXPECT_NE(std::string(e.what()).find("out of place"), std::string::npos) << e.what();
}

// A factory whose sizes come from Python; N and the result land in the kernel's shapes.
int64_t first_dim(const std::string& expr_text, std::map<std::string, std::string> defines = {},
                  const std::string& prelude = "") {
  IRModule m = parse(prelude + R"(
def k(N=100, dtype="float16"):
    n = )" + expr_text + R"(
    @T.prim_func
    def main(A: T.Tensor((n,), "float32")):
        with T.Kernel(1) as bx:
            A[0] = 1.0
    return main
)",
                     std::move(defines));
  return *as_const_int(m.functions().at(0)->params.at(0).buffer->shape.at(0));
}

TEST(PythonConstants, TilelangMathAndBitLength) {
  EXPECT_EQ(first_dim("tilelang.math.next_power_of_2(N)"), 128);
  EXPECT_EQ(first_dim("tilelang.next_power_of_2(N)", {{"N", "64"}}), 64);
  EXPECT_EQ(first_dim("next_power_of_2(N) + cdiv(N, 32)", {{"N", "33"}},
                      "from tilelang.math import next_power_of_2, cdiv\n"),
            64 + 2);
  EXPECT_EQ(first_dim("tl.cdiv(N, 7)", {}, "import tilelang as tl\n"), 15);
  EXPECT_EQ(first_dim("N.bit_length()"), 7);
  EXPECT_EQ(first_dim("2 ** (N.bit_length() - 1)"), 64);
}

TEST(PythonConstants, IsinstanceMembershipAndDtypeQueries) {
  EXPECT_EQ(first_dim("1 if isinstance(N, int) and not isinstance(N, (float, str)) else 2"), 1);
  EXPECT_EQ(first_dim("1 if isinstance(dtype, str) else 2"), 1);
  EXPECT_EQ(first_dim("1 if dtype in [T.float16, \"bfloat16\"] else 2"), 1);
  EXPECT_EQ(first_dim("1 if dtype not in (\"float32\",) else 2"), 1);
  EXPECT_EQ(first_dim("1 if N in {100: 1, 3: 2} else 2"), 1);
  EXPECT_EQ(first_dim("1 if \"16\" in dtype else 2"), 1);
  EXPECT_EQ(first_dim("128 // DataType(dtype).bits", {}, "from tvm import DataType\n"), 8);
  EXPECT_EQ(first_dim("tvm.DataType(\"int8\").bits + T.dtype(dtype).itemsize", {}, "import tvm\n"),
            10);
  EXPECT_EQ(first_dim("math.ceil(N / 3.0) + math.floor(math.sqrt(17)) + math.gcd(N, 12)", {},
                      "import math\n"),
            34 + 4 + 4);
}

TEST(PythonConstants, BuiltinsDictsIdentityAndTrueDivision) {
  EXPECT_EQ(first_dim("len((1, 2, 3)) + sum([4, 5]) + len(dtype)"), 3 + 9 + 7);
  EXPECT_EQ(first_dim("int(math.log2(N * 1.0)) + int(7 / 2)", {{"N", "64"}}, "import math\n"),
            6 + 3);
  EXPECT_EQ(first_dim("{\"float32\": 4, \"float16\": 2}[dtype] * 10"), 20);
  EXPECT_EQ(first_dim("1 if (N > 3) is True and (N < 3) is False else 2"), 1);
  EXPECT_EQ(first_dim("math.ceil(N / 3) + math.ceil(N / 4)", {}, "import math\n"), 34 + 25);
}

TEST(PythonConstants, AFactoryReturnsOneOfItsKernels) {
  IRModule m = parse(R"(
def k(split=2):
    @T.prim_func
    def with_split(A: T.Tensor((4,), "float32")):
        with T.Kernel(1) as bx:
            A[0] = 1.0

    @T.prim_func
    def without_split(A: T.Tensor((8,), "float32")):
        with T.Kernel(1) as bx:
            A[0] = 2.0

    return with_split if split > 1 else without_split
)",
                     {{"split", "1"}});
  EXPECT_EQ(*as_const_int(m.functions().at(0)->params.at(0).buffer->shape.at(0)), 8);
  EXPECT_EQ(m.functions().at(0)->name, "k");
}

TEST(LoopVariables, AnInnerLoopMayShadowAnOuterOne) {
  IRModule m = parse(R"(
@T.prim_func
def f(A: T.Tensor((4, 4), "float32")):
    with T.Kernel(1, threads=4):
        for i in T.serial(4):
            for i, j in T.Parallel(4, 4):
                A[i, j] = 1.0
            A[i, 0] = 2.0
)");
  EXPECT_EQ(nodes_of<ForNode>(m).size(), 3u);
}

TEST(PythonConstants, ErrorsNameTheRule) {
  SourceError e = error_of(R"(
def k(N=0):
    n = tilelang.math.next_power_of_2(1.5)
    @T.prim_func
    def main(A: T.Tensor((n,), "float32")):
        with T.Kernel(1) as bx:
            A[0] = 1.0
    return main
)");
  EXPECT_NE(std::string(e.what()).find("expects an int"), std::string::npos) << e.what();
  EXPECT_EQ(e.span().line, 3 + kHeaderLines);
  e = error_of(R"(
def k(N=0):
    n = 4 if isinstance(N, T.Buffer) else 2
    @T.prim_func
    def main(A: T.Tensor((n,), "float32")):
        with T.Kernel(1) as bx:
            A[0] = 1.0
    return main
)");
  EXPECT_NE(std::string(e.what()).find("isinstance checks Python's int"), std::string::npos)
      << e.what();
}

TEST(Clamp, KeywordArguments) {
  IRModule m = parse(R"(
@T.prim_func
def f(A: T.Tensor((16,), "float32")):
    with T.Kernel(1, threads=16):
        for i in T.Parallel(16):
            A[i] = T.clamp(A[i], min_val=-0.5, max_val=0.5)
)");
  std::string printed = print(m);
  EXPECT_NE(printed.find("T.min(T.max("), std::string::npos) << printed;
}

}  // namespace
}  // namespace tilec::ir

namespace tilec::ir {
namespace {

TEST(SeveralGrids, RunInOrderAtTheTopLevelOnly) {
  IRModule m = parse(R"(
@T.prim_func
def f(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=8):
        A[T.get_thread_binding()] = 1.0
    n = 2
    with T.Kernel(n, threads=4) as bx:
        B[bx * 4 + T.get_thread_binding()] = A[bx * 4 + T.get_thread_binding()]
)");
  EXPECT_EQ(nodes_of<KernelNode>(m).size(), 2u);
  // A constant loop around launches is unrolled (one launch per iteration); a run-time
  // if around one cannot be.
  EXPECT_EQ(nodes_of<KernelNode>(parse(R"(
@T.prim_func
def f(A: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=8):
        A[T.get_thread_binding()] = 1.0
    for i in T.serial(2):
        with T.Kernel(1, threads=8):
            A[T.get_thread_binding()] = A[T.get_thread_binding()] + i
)"))
                .size(),
            3u);
  SourceError e = error_of(R"(
@T.prim_func
def f(A: T.Tensor((8,), "float32"), n: T.int32):
    with T.Kernel(1, threads=8):
        A[T.get_thread_binding()] = 1.0
    if n > 0:
        with T.Kernel(1, threads=8):
            A[T.get_thread_binding()] = 2.0
)");
  EXPECT_NE(std::string(e.what()).find("launches 2 T.Kernel grids, but not all at its top level"),
            std::string::npos)
      << e.what();
}

TEST(Cumsum, LowersToAParallelNestOfSerialScans) {
  IRModule m = parse(R"(
@T.prim_func
def f(A: T.Tensor((4, 8), "float32")):
    with T.Kernel(1, threads=32):
        S = T.alloc_shared((4, 8), "float32")
        T.copy(A, S)
        T.cumsum(S, dim=-1, reverse=True)
        T.copy(S, A)
)");
  std::vector<std::pair<ForKind, int64_t>> loops;
  for (const ForNode* f : nodes_of<ForNode>(m)) loops.push_back({f->for_kind, f->step});
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0], std::make_pair(ForKind::kParallel, int64_t(1)));  // the rows
  EXPECT_EQ(loops[1], std::make_pair(ForKind::kSerial, int64_t(-1)));   // reverse scan
}

TEST(Cumsum, BadOperandsAreLocatedErrors) {
  auto message = [](const std::string& call, const std::string& extra = "") {
    return std::string(error_of(R"(
@T.prim_func
def f(A: T.Tensor((4, 8), "float32")):
    with T.Kernel(1, threads=32):
        S = T.alloc_shared((4, 8), "float32")
        D = T.alloc_shared((4, 4), "float32")
)" + extra + "        " + call + "\n")
                           .what());
  };
  EXPECT_NE(message("T.cumsum(A)").find("scans a shared or fragment tile, not the global"),
            std::string::npos);
  EXPECT_NE(message("T.cumsum(S, dim=2)").find("dim 2 is out of range"), std::string::npos);
  EXPECT_NE(message("T.cumsum(S, D)").find("must have the extents of 'S'"), std::string::npos);
}

}  // namespace
}  // namespace tilec::ir
