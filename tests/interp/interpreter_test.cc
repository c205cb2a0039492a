#include "tilec/interp/interpreter.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tilec::ir {
namespace {

Param tensor_param(const Buffer& b) {
  return Param{make_var(b->name, DataType::Int64()), b};
}

Stmt kernel(std::vector<Expr> grid, std::vector<Var> block_vars, Stmt body) {
  auto k = std::make_shared<KernelNode>();
  k->grid = std::move(grid);
  k->block_vars = std::move(block_vars);
  k->threads = {128};
  k->body = std::move(body);
  return Stmt(k);
}

Stmt gemm(TileRegion a, TileRegion b, TileRegion c, bool ta = false, bool tb = false,
          bool clear = false) {
  auto g = std::make_shared<GemmNode>();
  g->a = std::move(a);
  g->b = std::move(b);
  g->c = std::move(c);
  g->transpose_a = ta;
  g->transpose_b = tb;
  g->clear_accum = clear;
  return Stmt(g);
}

Stmt reduce(ReduceKind kind, Buffer src, Buffer dst, int dim, bool clear) {
  auto r = std::make_shared<ReduceNode>();
  r->reduce_kind = kind;
  r->src = std::move(src);
  r->dst = std::move(dst);
  r->dim = dim;
  r->clear = clear;
  return Stmt(r);
}

TileRegion whole(Buffer b) {
  return TileRegion{std::move(b), {}};
}
TileRegion at(Buffer b, std::vector<Expr> idx) {
  TileRegion r{std::move(b), {}};
  for (auto& i : idx) r.dims.push_back(RegionDim{i, std::nullopt});
  return r;
}

HostTensor tensor(DataType t, std::vector<int64_t> shape, std::vector<double> values) {
  HostTensor h(t, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) h.set(int64_t(i), values[i]);
  return h;
}
std::vector<double> values(const HostTensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.get(i));
  return v;
}

TEST(Interpreter, VectorAddOverASymbolicSizeWithAGuardedEdgeBlock) {
  Var n = make_var("n"), bx = make_var("bx"), i = make_var("i"), idx = make_var("idx");
  Buffer a = make_buffer("A", {Expr(n)}, DataType::Float32());
  Buffer b = make_buffer("B", {Expr(n)}, DataType::Float32());
  Buffer c = make_buffer("C", {Expr(n)}, DataType::Float32());
  Stmt body = for_loop(
      i, Expr(0), Expr(4),
      let(idx, bx * Expr(4) + i,
          if_then_else(Expr(idx) < Expr(n),
                       store(c, {Expr(idx)}, load(a, {Expr(idx)}) + load(b, {Expr(idx)})))),
      ForKind::kParallel);
  auto f = make_prim_func("vadd", {tensor_param(a), tensor_param(b), tensor_param(c)},
                          kernel({ceildiv(n, Expr(4))}, {bx}, body));
  HostTensor ta = tensor(DataType::Float32(), {6}, {1, 2, 3, 4, 5, 6});
  HostTensor tb = tensor(DataType::Float32(), {6}, {10, 20, 30, 40, 50, 60});
  HostTensor tc(DataType::Float32(), {6});
  interpret(f, {ta.view(), tb.view(), tc.view()});
  EXPECT_EQ(values(tc), (std::vector<double>{11, 22, 33, 44, 55, 66}));
}

TEST(Interpreter, CopyReadsZeroOutsideTheSourceAndSkipsWritesOutsideTheDestination) {
  // Two blocks of 4 over 5 elements: the second tile hangs over the edge.
  Var bx = make_var("bx"), i = make_var("i");
  Buffer a = make_buffer("A", {Expr(5)}, DataType::Float32());
  Buffer out = make_buffer("B", {Expr(5)}, DataType::Float32());
  Buffer seen = make_buffer("Seen", {Expr(2), Expr(4)}, DataType::Float32());
  Buffer s = make_buffer("S", {Expr(4)}, DataType::Float32(), StorageScope::kShared);
  Stmt body = allocate(
      s, seq({copy(at(a, {bx * Expr(4)}), whole(s)),
              for_loop(i, Expr(0), Expr(4), store(seen, {Expr(bx), Expr(i)}, load(s, {Expr(i)}))),
              for_loop(i, Expr(0), Expr(4),
                       store(s, {Expr(i)}, load(s, {Expr(i)}) * Expr(2.0) + Expr(1.0))),
              copy(whole(s), at(out, {bx * Expr(4)}))}));
  auto f = make_prim_func("edge", {tensor_param(a), tensor_param(out), tensor_param(seen)},
                          kernel({Expr(2)}, {bx}, body));
  HostTensor ta = tensor(DataType::Float32(), {5}, {1, 2, 3, 4, 5});
  HostTensor tb(DataType::Float32(), {5}), tseen(DataType::Float32(), {2, 4});
  interpret(f, {ta.view(), tb.view(), tseen.view()});
  EXPECT_EQ(values(tseen), (std::vector<double>{1, 2, 3, 4, 5, 0, 0, 0}));
  EXPECT_EQ(values(tb), (std::vector<double>{3, 5, 7, 9, 11}));
}

TEST(Interpreter, CopyDropsUnitDimensionsAndConvertsToTheDestinationDtype) {
  // A[1, 0:3] (a 1x3 slice) into a 3-element float16 tile, then into row 0 of an int32 D.
  Buffer a = make_buffer("A", {Expr(2), Expr(3)}, DataType::Float32());
  Buffer d = make_buffer("D", {Expr(2), Expr(3)}, DataType::Int32());
  Buffer s = make_buffer("S", {Expr(3)}, DataType::Float16(), StorageScope::kShared);
  TileRegion row{a, {RegionDim{Expr(1), {}}, RegionDim{Expr(0), Expr(3)}}};
  TileRegion drow{d, {RegionDim{Expr(0), {}}, RegionDim{Expr(0), Expr(3)}}};
  auto f = make_prim_func("rows", {tensor_param(a), tensor_param(d)},
                          allocate(s, seq({copy(row, whole(s)), copy(whole(s), drow)})));
  HostTensor ta = tensor(DataType::Float32(), {2, 3}, {0, 0, 0, 2.7, -3.9, 1000.1});
  HostTensor td(DataType::Int32(), {2, 3});
  interpret(f, {ta.view(), td.view()});
  // float16 holds 2.69921875, -3.900390625, 1000.0; int32 truncates toward zero.
  EXPECT_EQ(values(td), (std::vector<double>{2, -3, 1000, 0, 0, 0}));
}

TEST(Interpreter, GemmWithEveryTransposeCombinationAndAccumulation) {
  // A = [[1,2,3],[4,5,6]] (2x3), B = [[1,2],[3,4],[5,6]] (3x2): A.B = [[22,28],[49,64]].
  std::vector<double> a_rm = {1, 2, 3, 4, 5, 6}, a_t = {1, 4, 2, 5, 3, 6};
  std::vector<double> b_rm = {1, 2, 3, 4, 5, 6}, b_t = {1, 3, 5, 2, 4, 6};
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Buffer a = make_buffer("A", ta ? std::vector<Expr>{3, 2} : std::vector<Expr>{2, 3},
                             DataType::Float16());
      Buffer b = make_buffer("B", tb ? std::vector<Expr>{2, 3} : std::vector<Expr>{3, 2},
                             DataType::Float16());
      Buffer c = make_buffer("C", {Expr(2), Expr(2)}, DataType::Float32());
      auto f = make_prim_func("mm", {tensor_param(a), tensor_param(b), tensor_param(c)},
                              gemm(whole(a), whole(b), whole(c), ta, tb));
      HostTensor tA =
          tensor(DataType::Float16(), ta ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{2, 3},
                 ta ? a_t : a_rm);
      HostTensor tB =
          tensor(DataType::Float16(), tb ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{3, 2},
                 tb ? b_t : b_rm);
      HostTensor tC = tensor(DataType::Float32(), {2, 2}, {100, 0, 0, -1});  // accumulated
      interpret(f, {tA.view(), tB.view(), tC.view()});
      EXPECT_EQ(values(tC), (std::vector<double>{122, 28, 49, 63})) << ta << tb;
    }
  }
  // clear_accum zeroes C first.
  Buffer a = make_buffer("A", {Expr(1), Expr(1)}, DataType::Float32());
  Buffer c = make_buffer("C", {Expr(1), Expr(1)}, DataType::Float32());
  auto f = make_prim_func("mm1", {tensor_param(a), tensor_param(c)},
                          gemm(whole(a), whole(a), whole(c), false, false, true));
  HostTensor tA = tensor(DataType::Float32(), {1, 1}, {3});
  HostTensor tC = tensor(DataType::Float32(), {1, 1}, {50});
  interpret(f, {tA.view(), tC.view()});
  EXPECT_EQ(tC.get(0), 9);
}

TEST(Interpreter, GemmShapeMismatchIsAnError) {
  Buffer a = make_buffer("A", {Expr(2), Expr(3)}, DataType::Float32());
  Buffer b = make_buffer("B", {Expr(2), Expr(2)}, DataType::Float32());
  Buffer c = make_buffer("C", {Expr(2), Expr(2)}, DataType::Float32());
  auto f = make_prim_func("bad", {tensor_param(a), tensor_param(b), tensor_param(c)},
                          gemm(whole(a), whole(b), whole(c)));
  HostTensor tA(DataType::Float32(), {2, 3}), tB(DataType::Float32(), {2, 2}),
      tC(DataType::Float32(), {2, 2});
  try {
    interpret(f, {tA.view(), tB.view(), tC.view()});
    FAIL() << "expected IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("T.gemm shapes do not agree"), std::string::npos)
        << e.what();
  }
}

struct ReduceCase {
  ReduceKind kind;
  int dim;
  bool clear;
  std::vector<double> expected;
};

TEST(Interpreter, EveryReductionWithAndWithoutClear) {
  // src = [[1, -5, 3], [-2, 4, -6]]; dst starts at 10 where it is not cleared.
  std::vector<ReduceCase> cases = {
      {ReduceKind::kSum, 1, true, {-1, -4}},     {ReduceKind::kSum, 1, false, {9, 6}},
      {ReduceKind::kMax, 1, true, {3, 4}},       {ReduceKind::kMax, 1, false, {10, 10}},
      {ReduceKind::kMin, 1, true, {-5, -6}},     {ReduceKind::kMin, 1, false, {-5, -6}},
      {ReduceKind::kAbsSum, 1, true, {9, 12}},   {ReduceKind::kAbsSum, 1, false, {19, 22}},
      {ReduceKind::kAbsMax, 1, true, {5, 6}},    {ReduceKind::kAbsMax, 1, false, {10, 10}},
      {ReduceKind::kSum, 0, true, {-1, -1, -3}}, {ReduceKind::kMax, 0, false, {10, 10, 10}},
      {ReduceKind::kMin, 0, true, {-2, -5, -6}}, {ReduceKind::kAbsMax, 0, true, {2, 5, 6}},
  };
  for (const auto& rc : cases) {
    int64_t out_len = rc.dim == 1 ? 2 : 3;
    Buffer src = make_buffer("S", {Expr(2), Expr(3)}, DataType::Float32());
    Buffer dst = make_buffer("D", {Expr(int(out_len))}, DataType::Float32());
    auto f = make_prim_func("r", {tensor_param(src), tensor_param(dst)},
                            reduce(rc.kind, src, dst, rc.dim, rc.clear));
    HostTensor ts = tensor(DataType::Float32(), {2, 3}, {1, -5, 3, -2, 4, -6});
    HostTensor td =
        tensor(DataType::Float32(), {out_len}, std::vector<double>(size_t(out_len), 10));
    interpret(f, {ts.view(), td.view()});
    EXPECT_EQ(values(td), rc.expected)
        << to_string(rc.kind) << " dim " << rc.dim << " clear " << rc.clear;
  }
}

TEST(Interpreter, ReduceIntoAWrongShapeNamesBothBuffers) {
  Buffer src = make_buffer("S", {Expr(2), Expr(3)}, DataType::Float32());
  Buffer dst = make_buffer("D", {Expr(3)}, DataType::Float32());
  auto f = make_prim_func("r", {tensor_param(src), tensor_param(dst)},
                          reduce(ReduceKind::kSum, src, dst, 1, true));
  HostTensor ts(DataType::Float32(), {2, 3}), td(DataType::Float32(), {3});
  try {
    interpret(f, {ts.view(), td.view()});
    FAIL() << "expected IRError";
  } catch (const IRError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'D' has shape [3]"), std::string::npos) << m;
    EXPECT_NE(m.find("gives [2]"), std::string::npos) << m;
  }
}

// out[0] = (x + y) - x evaluated in `dtype`: rounding after each operation loses y.
double add_then_subtract(DataType dtype, double x, double y) {
  Buffer in = make_buffer("In", {Expr(2)}, dtype);
  Buffer out = make_buffer("Out", {Expr(1)}, DataType::Float32());
  Expr vx = load(in, {Expr(0)}), vy = load(in, {Expr(1)});
  auto f = make_prim_func("round", {tensor_param(in), tensor_param(out)},
                          store(out, {Expr(0)}, cast(DataType::Float32(), (vx + vy) - vx)));
  HostTensor tin = tensor(dtype, {2}, {x, y});
  HostTensor tout(DataType::Float32(), {1});
  interpret(f, {tin.view(), tout.view()});
  return tout.get(0);
}

TEST(Interpreter, LowPrecisionArithmeticRoundsAfterEachOperation) {
  EXPECT_EQ(add_then_subtract(DataType::Float32(), 1.0, 0x1p-11), 0x1p-11);
  EXPECT_EQ(add_then_subtract(DataType::Float16(), 1.0, 0x1p-11), 0.0);  // tie to even
  EXPECT_EQ(add_then_subtract(DataType::Float16(), 1.0, 0x1p-11 + 0x1p-12), 0x1p-10);
  EXPECT_EQ(add_then_subtract(DataType::Float16(), 2048.0, 1.0), 0.0);
  EXPECT_EQ(add_then_subtract(DataType::BFloat16(), 256.0, 1.0), 0.0);
  EXPECT_EQ(add_then_subtract(DataType::BFloat16(), 1.0, 0x1p-7), 0x1p-7);
  EXPECT_EQ(add_then_subtract(DataType::BFloat16(), 1.0, 0x1p-8), 0.0);
  // Overflow in float16 arithmetic gives infinity.
  EXPECT_TRUE(std::isinf(add_then_subtract(DataType::Float16(), 60000.0, 60000.0)));
}

TEST(Interpreter, IntegerFloorDivisionAndModuloFollowPython) {
  Buffer in = make_buffer("In", {Expr(2)}, DataType::Int32());
  Buffer out = make_buffer("Out", {Expr(2)}, DataType::Int32());
  Expr a = load(in, {Expr(0)}), b = load(in, {Expr(1)});
  auto f = make_prim_func(
      "divmod", {tensor_param(in), tensor_param(out)},
      seq({store(out, {Expr(0)}, floordiv(a, b)), store(out, {Expr(1)}, floormod(a, b))}));
  struct Case {
    int a, b, q, r;
  };
  for (Case c : {Case{-7, 2, -4, 1}, Case{7, -2, -4, -1}, Case{-7, -2, 3, -1}, Case{7, 2, 3, 1},
                 Case{-8, 2, -4, 0}}) {
    HostTensor tin = tensor(DataType::Int32(), {2}, {double(c.a), double(c.b)});
    HostTensor tout(DataType::Int32(), {2});
    interpret(f, {tin.view(), tout.view()});
    EXPECT_EQ(values(tout), (std::vector<double>{double(c.q), double(c.r)})) << c.a << " " << c.b;
  }
  HostTensor zero = tensor(DataType::Int32(), {2}, {5, 0});
  HostTensor tout(DataType::Int32(), {2});
  EXPECT_THROW(interpret(f, {zero.view(), tout.view()}), IRError);
}

TEST(Interpreter, IntegerArithmeticWrapsToItsWidth) {
  Buffer in = make_buffer("In", {Expr(1)}, DataType::Int(8));
  Buffer out = make_buffer("Out", {Expr(1)}, DataType::Int(8));
  auto f = make_prim_func("wrap", {tensor_param(in), tensor_param(out)},
                          store(out, {Expr(0)}, load(in, {Expr(0)}) + Expr(1)));
  HostTensor tin = tensor(DataType::Int(8), {1}, {127});
  HostTensor tout(DataType::Int(8), {1});
  interpret(f, {tin.view(), tout.view()});
  EXPECT_EQ(tout.get(0), -128);
}

TEST(Interpreter, SelectEvaluatesOnlyTheChosenSide) {
  // The untaken side would read far outside A, which is an error when evaluated.
  Var i = make_var("i");
  Buffer a = make_buffer("A", {Expr(4)}, DataType::Float32());
  Buffer out = make_buffer("Out", {Expr(4)}, DataType::Float32());
  Expr chosen = select(Expr(i) < Expr(2), load(a, {Expr(i)}), load(a, {Expr(i) + Expr(100)}));
  Expr mirrored = select(Expr(i) < Expr(2), make_float(-1.0), load(a, {Expr(i)}));
  auto f = make_prim_func("sel", {tensor_param(a), tensor_param(out)},
                          seq({for_loop(i, Expr(0), Expr(2), store(out, {Expr(i)}, chosen)),
                               for_loop(i, Expr(2), Expr(4), store(out, {Expr(i)}, mirrored))}));
  HostTensor ta = tensor(DataType::Float32(), {4}, {5, 6, 7, 8});
  HostTensor tout(DataType::Float32(), {4});
  interpret(f, {ta.view(), tout.view()});
  EXPECT_EQ(values(tout), (std::vector<double>{5, 6, 7, 8}));
}

TEST(Interpreter, MathIntrinsicsAndDownwardLoops) {
  Var i = make_var("i");
  Buffer out = make_buffer("Out", {Expr(6)}, DataType::Float32());
  Expr x = make_float(2.0);
  auto f = make_prim_func(
      "math", {tensor_param(out)},
      seq({store(out, {Expr(0)}, call("exp", {x})), store(out, {Expr(1)}, call("sqrt", {x})),
           store(out, {Expr(2)}, call("fma", {x, x, make_float(1.0)})),
           store(out, {Expr(3)}, call("sigmoid", {make_float(0.0)})),
           // 5, 4 (downward, step -1, end exclusive): the last write wins.
           for_loop(i, Expr(5), Expr(3), store(out, {Expr(4)}, cast(DataType::Float32(), i)),
                    ForKind::kSerial, -1),
           store(out, {Expr(5)}, call("pow", {x, make_float(10.0)}))}));
  HostTensor tout(DataType::Float32(), {6});
  interpret(f, {tout.view()});
  EXPECT_EQ(tout.get(0), double(float(std::exp(2.0))));
  EXPECT_EQ(tout.get(1), double(float(std::sqrt(2.0))));
  EXPECT_EQ(tout.get(2), 5.0);
  EXPECT_EQ(tout.get(3), 0.5);
  EXPECT_EQ(tout.get(4), 4.0);
  EXPECT_EQ(tout.get(5), 1024.0);
}

// An allocation read before anything wrote it is reported with its place (issue 12:
// it used to read as NaN here and 0 in compiled code, silently); alloc_var's init
// counts as a write.
TEST(Interpreter, ReadingAnAllocationBeforeAnyWriteIsReportedAndAllocVarTakesItsInit) {
  Buffer out = make_buffer("Out", {Expr(2)}, DataType::Float32());
  Buffer frag = make_buffer("F", {Expr(2)}, DataType::Float32(), StorageScope::kFragment);
  Buffer acc = make_buffer("acc", {Expr(1)}, DataType::Float32(), StorageScope::kVar);
  auto read_frag = make_prim_func(
      "poison", {tensor_param(out)},
      allocate(frag, seq({store(frag, {Expr(1)}, make_float(1.0)),
                          store(out, {Expr(0)}, load(frag, {Expr(1)}, Span{5, 7})),
                          store(out, {Expr(1)}, load(frag, {Expr(0)}, Span{6, 9}))})));
  HostTensor tout(DataType::Float32(), {2});
  try {
    interpret(read_frag, {tout.view()});
    FAIL() << "expected IRError";
  } catch (const IRError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("line 6:9: read of 'F' at index [0] (shape [2]) before anything wrote it"),
              std::string::npos)
        << what;
  }
  auto read_var =
      make_prim_func("init", {tensor_param(out)},
                     allocate(acc, store(out, {Expr(1)}, load(acc, {Expr(0)})), make_float(7.0)));
  interpret(read_var, {tout.view()});
  EXPECT_EQ(tout.get(1), 7.0);
}

TEST(Interpreter, OversizedAllocationIsAnErrorNotACrash) {
  Buffer out = make_buffer("Out", {Expr(1)}, DataType::Float32());
  Buffer huge = make_buffer("Huge",
                            {make_int(int64_t(1) << 40, DataType::Int64()),
                             make_int(int64_t(1) << 40, DataType::Int64())},
                            DataType::Float32(), StorageScope::kLocal);
  auto f = make_prim_func("huge", {tensor_param(out)}, allocate(huge, evaluate(Expr(0))));
  HostTensor tout(DataType::Float32(), {1});
  try {
    interpret(f, {tout.view()});
    FAIL() << "expected IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("allocation 'Huge'"), std::string::npos) << e.what();
  }
}

TEST(Interpreter, OutOfRangeAccessNamesTheBufferAndIndex) {
  Var i = make_var("i");
  Buffer out = make_buffer("Out", {Expr(4)}, DataType::Float32());
  auto f = make_prim_func("oob", {tensor_param(out)},
                          for_loop(i, Expr(0), Expr(5), store(out, {Expr(i)}, make_float(1.0))));
  HostTensor tout(DataType::Float32(), {4});
  try {
    interpret(f, {tout.view()});
    FAIL() << "expected IRError";
  } catch (const IRError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("store to 'Out' at index [4] is outside its shape [4]"), std::string::npos)
        << m;
  }
}

TEST(Interpreter, ArgumentsAreCheckedAndNamed) {
  Var n = make_var("n");
  Buffer a = make_buffer("A", {Expr(n)}, DataType::Float32());
  Buffer b = make_buffer("B", {Expr(n)}, DataType::Float32());
  auto f = make_prim_func("two", {tensor_param(a), tensor_param(b)},
                          store(b, {Expr(0)}, load(a, {Expr(0)})));
  HostTensor a4(DataType::Float32(), {4}), b5(DataType::Float32(), {5}),
      a4h(DataType::Float16(), {4});
  auto expect_error = [&](const std::vector<ArgValue>& args, const std::string& needle) {
    try {
      interpret(f, args);
      FAIL() << "expected IRError containing " << needle;
    } catch (const IRError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error({a4.view(), b5.view()}, "argument 1 ('B')");
  expect_error({a4h.view(), b5.view()}, "must be a float32 tensor");
  expect_error({a4.view()}, "takes 2 argument(s) (A, B) but got 1");
  expect_error({a4.view(), int64_t(3)}, "a scalar was passed");
}

TEST(Interpreter, NamesOutsideTheirScopeAndNestedKernelsAreRejected) {
  Var i = make_var("i"), bx = make_var("bx"), by = make_var("by");
  Buffer out = make_buffer("Out", {Expr(4)}, DataType::Int32());
  auto undefined = make_prim_func("u", {tensor_param(out)}, store(out, {Expr(0)}, i));
  EXPECT_THROW(Interpreter{undefined}, IRError);
  auto nested =
      make_prim_func("n", {tensor_param(out)},
                     kernel({Expr(1)}, {bx}, kernel({Expr(1)}, {by}, store(out, {Expr(0)}, by))));
  EXPECT_THROW(Interpreter{nested}, IRError);
  Buffer s = make_buffer("S", {Expr(4)}, DataType::Int32(), StorageScope::kShared);
  auto escaped = make_prim_func("e", {tensor_param(out)}, store(s, {Expr(0)}, Expr(1)));
  EXPECT_THROW(Interpreter{escaped}, IRError);
}

// Tiled GEMM in TileLang's canonical form: shared tiles, a fragment accumulator, a
// pipelined loop over K; checked against a double-precision triple loop.
TEST(Interpreter, TiledGemmMatchesAReferenceWithinFloat32Tolerance) {
  const int m = 256, n = 256, k = 256, bm = 64, bn = 64, bk = 32;
  Buffer a = make_buffer("A", {m, k}, DataType::Float16());
  Buffer b = make_buffer("B", {k, n}, DataType::Float16());
  Buffer c = make_buffer("C", {m, n}, DataType::Float32());
  Buffer as = make_buffer("A_s", {bm, bk}, DataType::Float16(), StorageScope::kShared);
  Buffer bs = make_buffer("B_s", {bk, bn}, DataType::Float16(), StorageScope::kShared);
  Buffer cf = make_buffer("C_f", {bm, bn}, DataType::Float32(), StorageScope::kFragment);
  Var bx = make_var("bx"), by = make_var("by"), ko = make_var("ko");
  auto fill_zero = std::make_shared<FillNode>();
  fill_zero->dst = whole(cf);
  fill_zero->value = make_float(0.0);
  Stmt loop = for_loop(ko, Expr(0), Expr(k / bk),
                       seq({copy(at(a, {by * Expr(bm), ko * Expr(bk)}), whole(as)),
                            copy(at(b, {ko * Expr(bk), bx * Expr(bn)}), whole(bs)),
                            gemm(whole(as), whole(bs), whole(cf))}),
                       ForKind::kPipelined);
  Stmt body = allocate(
      as,
      allocate(bs, allocate(cf, seq({Stmt(fill_zero), loop,
                                     copy(whole(cf), at(c, {by * Expr(bm), bx * Expr(bn)}))}))));
  auto f = make_prim_func("gemm", {tensor_param(a), tensor_param(b), tensor_param(c)},
                          kernel({Expr(n / bn), Expr(m / bm)}, {bx, by}, body));
  HostTensor ta(DataType::Float16(), {m, k}), tb(DataType::Float16(), {k, n});
  HostTensor tc(DataType::Float32(), {m, n}), ref(DataType::Float32(), {m, n});
  fill_random(ta.view(), 1);
  fill_random(tb.view(), 2);
  interpret(f, {ta.view(), tb.view(), tc.view()});
  std::vector<double> av = values(ta), bv = values(tb);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int x = 0; x < k; ++x) sum += av[size_t(i * k + x)] * bv[size_t(x * n + j)];
      ref.set(i * n + j, sum);
    }
  }
  CompareResult r = compare_tensors(tc.view(), ref.view());
  EXPECT_TRUE(r.ok) << r.first_mismatch;
}

TEST(MakeRandomArgs, ZeroesOutputsAndNeedsEverySymbolicDim) {
  Var n = make_var("n");
  Buffer a = make_buffer("A", {Expr(n)}, DataType::Float32());
  Buffer b = make_buffer("B", {Expr(n)}, DataType::Float32());
  auto f = make_prim_func("copy", {tensor_param(a), tensor_param(b)}, copy(whole(a), whole(b)));
  EXPECT_THROW(make_random_args(f, {}, 1), IRError);
  RandomArgs args = make_random_args(f, {{"n", 8}}, 1);
  ASSERT_EQ(args.tensors.size(), 2u);
  EXPECT_EQ(args.written, (std::vector<bool>{false, true}));
  EXPECT_EQ(tensor_checksum(args.tensors[1].view()),
            tensor_checksum(HostTensor(DataType::Float32(), {8}).view()));
  interpret(f, args.args);
  EXPECT_EQ(values(args.tensors[1]), values(args.tensors[0]));
}

}  // namespace
}  // namespace tilec::ir
