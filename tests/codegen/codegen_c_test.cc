// CodeGenC: the C it prints for every expression kind, and the semantics of that C
// (floor division, 16-bit float rounding) checked by compiling and running it with
// the system C compiler against the same operations done in C++.
#include "tilec/codegen/codegen_c.h"

#include "tilec/ir/float16.h"

#include "compile_c.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tilec::codegen {
namespace {

using namespace ir;

Param scalar(const std::string& name, DataType t) {
  return Param{make_var(name, t), nullptr};
}
Param tensor(const Buffer& b) {
  return Param{make_var(b->name), b};
}

// One function storing each expression into out[k].
std::string print_stores(const std::vector<Param>& params, const Buffer& out,
                         const std::vector<Expr>& values) {
  std::vector<Stmt> stores;
  for (size_t k = 0; k < values.size(); ++k)
    stores.push_back(store(out, {make_int(int64_t(k))}, values[k]));
  std::vector<Param> all = params;
  all.insert(all.begin(), tensor(out));
  CodeGenC gen;
  gen.add_function(make_prim_func("f", all, seq(stores)));
  return gen.finish();
}

Expr var_of(const Param& p) {
  return p.var;
}

TEST(CodeGenC, PrintsEveryExpressionKind) {
  Buffer out = make_buffer("out", {Expr(16)}, DataType::Float32());
  Buffer in = make_buffer("in", {Expr(16)}, DataType::Float32());
  Param a = scalar("a", DataType::Int32()), b = scalar("b", DataType::Int32());
  Param x = scalar("x", DataType::Float32()), big = scalar("big", DataType::Int64());
  Expr ia = var_of(a), ib = var_of(b), fx = var_of(x);
  std::string c = print_stores(
      {a, b, x, big, tensor(in)}, out,
      {ia + ib * Expr(3), (ia + ib) * Expr(3), ia - (ib - Expr(1)), floordiv(ia, ib),
       floormod(ia, ib), min(fx, Expr(2.5)), max(ia, ib), select(ia < ib, fx, Expr(1.0)),
       cast(DataType::Int64(), fx) + var_of(big), call("exp", {fx}), call("sqrt", {fx}),
       call("rsqrt", {fx}), call("sigmoid", {fx}), load(in, {ia}),
       cast(DataType::Float32(), logical_and(eq(ia, ib), logical_not(fx > Expr(0.0)))), -(-fx)});
  EXPECT_NE(c.find("int32_t f(float* restrict out, int32_t a, int32_t b, float x, int64_t big, "
                   "float* restrict in)"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("out[0] = (float)(a + b * 3);"), std::string::npos) << c;
  EXPECT_NE(c.find("(float)((a + b) * 3)"), std::string::npos) << c;
  EXPECT_NE(c.find("a - (b - 1)"), std::string::npos) << c;
  EXPECT_NE(c.find("tilec_floordiv_i32(a, b)"), std::string::npos) << c;
  EXPECT_NE(c.find("tilec_floormod_i32(a, b)"), std::string::npos) << c;
  EXPECT_NE(c.find("out[5] = 2.5f < x ? 2.5f : x;"), std::string::npos) << c;
  EXPECT_NE(c.find("a < b ? b : a"), std::string::npos) << c;
  EXPECT_NE(c.find("a < b ? x : 1.0f"), std::string::npos) << c;
  EXPECT_NE(c.find("(int64_t)x + big"), std::string::npos) << c;
  EXPECT_NE(c.find("expf(x)"), std::string::npos) << c;
  EXPECT_NE(c.find("sqrtf(x)"), std::string::npos) << c;
  EXPECT_NE(c.find("1.0f / sqrtf(x)"), std::string::npos) << c;
  EXPECT_NE(c.find("1.0f / (1.0f + expf(-x))"), std::string::npos) << c;
  EXPECT_NE(c.find("out[13] = in[a];"), std::string::npos) << c;
  EXPECT_NE(c.find("a == b && !(x > 0.0f)"), std::string::npos) << c;
  EXPECT_NE(c.find("-(-x)"), std::string::npos) << c;
  EXPECT_NE(c.find("#include <math.h>"), std::string::npos);
  EXPECT_NE(c.find("static inline __attribute__((unused)) int32_t tilec_floordiv_i32"),
            std::string::npos);
  EXPECT_EQ(c.find("tilec_f16_to_f32"), std::string::npos) << "unused helpers stay out";
}

TEST(CodeGenC, NonNegativeFloorDivisionPrintsPlainDivision) {
  Buffer out = make_buffer("out", {Expr(64)}, DataType::Int32());
  Var i = make_var("i");
  CodeGenC gen;
  gen.add_function(make_prim_func(
      "g", {tensor(out)},
      for_loop(i, Expr(0), Expr(64), store(out, {i}, floordiv(i, Expr(8)) + floormod(i, Expr(8))),
               ForKind::kVectorized)));
  std::string c = gen.finish();
  EXPECT_NE(c.find("  TILEC_IVDEP\n  for (int32_t i = 0; i < 64; ++i) {"), std::string::npos) << c;
  EXPECT_NE(c.find("out[i] = i / 8 + i % 8;"), std::string::npos) << c;
  EXPECT_EQ(c.find("tilec_floordiv"), std::string::npos) << c;
  EXPECT_NE(c.find("#define TILEC_IVDEP _Pragma(\"GCC ivdep\")"), std::string::npos) << c;
}

TEST(CodeGenC, AllocationsLetsIfsAndUniqueNames) {
  Buffer out = make_buffer("out", {Expr(4)}, DataType::Float32());
  Buffer tile = make_buffer("tile", {Expr(4)}, DataType::Float32(), StorageScope::kShared);
  Buffer huge = make_buffer("huge", {Expr(1 << 20)}, DataType::Float32(), StorageScope::kFragment);
  Buffer acc = make_buffer("acc", {}, DataType::Float32(), StorageScope::kVar);
  Var i = make_var("i"), i2 = make_var("i"), t = make_var("int"), inf = make_var("INFINITY");
  Stmt body = allocate(
      tile,
      allocate(huge,
               allocate(acc,
                        seq({for_loop(i, Expr(0), Expr(4), store(tile, {i}, Expr(1.0))),
                             let(t, Expr(2),
                                 for_loop(i2, Expr(0), Expr(4),
                                          if_then_else(i2 < t, store(acc, {}, load(tile, {i2})),
                                                       store(out, {i2}, load(acc, {}))))),
                             let(inf, Expr(1), store(huge, {inf}, load(acc, {})))}),
                        Expr(0.5))));
  CodeGenC gen;
  gen.add_function(make_prim_func("h", {tensor(out)}, body));
  std::string c = gen.finish();
  EXPECT_NE(c.find("float tile[4] __attribute__((aligned(64)));"), std::string::npos) << c;
  EXPECT_NE(c.find("float* restrict huge = (float*)tilec_alloc("), std::string::npos) << c;
  EXPECT_NE(c.find("if (huge == NULL) return TILEC_STATUS_OUT_OF_MEMORY;"), std::string::npos);
  EXPECT_NE(c.find("tilec_free(huge);"), std::string::npos) << c;
  EXPECT_NE(c.find("float acc = 0.5f;"), std::string::npos) << c;
  EXPECT_NE(c.find("const int32_t int_ = 2;"), std::string::npos) << c;  // C keyword renamed
  EXPECT_NE(c.find("for (int32_t i_1 = 0; i_1 < 4; ++i_1)"), std::string::npos) << c;
  EXPECT_NE(c.find("if (i_1 < int_) {\n"), std::string::npos) << c;
  EXPECT_NE(c.find("acc = tile[i_1];"), std::string::npos) << c;
  EXPECT_NE(c.find("} else {\n"), std::string::npos) << c;
  EXPECT_NE(c.find("huge[INFINITY_] = acc;"), std::string::npos) << c;  // macro name avoided
}

TEST(CodeGenC, LoopBoundsThatBindLooserThanTheComparisonAreParenthesized) {
  // for i in [select(a < b, 1, 0) .. min(a, b)) summed: a = 7, b = 3 runs i = 0, 1, 2;
  // a = 4, b = 9 runs i = 1, 2, 3. Printed unparenthesized, `i < b < a ? b : a` never ends.
  Buffer out = make_buffer("out", {Expr(1)}, DataType::Int32());
  Param a = scalar("a", DataType::Int32()), b = scalar("b", DataType::Int32());
  Var i = make_var("i");
  Expr begin = select(var_of(a) < var_of(b), Expr(1), Expr(0));
  Stmt body = seq(
      {store(out, {Expr(0)}, Expr(0)), for_loop(i, begin, min(var_of(a), var_of(b)),
                                                store(out, {Expr(0)}, load(out, {Expr(0)}) + i))});
  CodeGenC gen;
  gen.add_function(make_prim_func("f", {tensor(out), a, b}, body));
  std::string src = gen.finish();
  EXPECT_NE(src.find("i < (b < a ? b : a)"), std::string::npos) << src;
  std::string out_text =
      compile_and_run(src,
                      "  int32_t r[1];\n  f(r, 7, 3);\n  printf(\"%d \", r[0]);\n"
                      "  f(r, 4, 9);\n  printf(\"%d\\n\", r[0]);",
                      "loop_bounds");
  EXPECT_EQ(out_text, "3 6\n") << src;
}

TEST(CodeGenC, RejectsUnloweredAndMultiDimensionalIR) {
  Buffer a = make_buffer("A", {Expr(4), Expr(4)}, DataType::Float32());
  CodeGenC gen;
  try {
    gen.add_function(make_prim_func("m", {tensor(a)}, store(a, {Expr(0), Expr(1)}, Expr(1.0))));
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("flatten_buffers"), std::string::npos) << e.what();
  }
  CodeGenC gen2;
  try {
    gen2.add_function(make_prim_func("t", {tensor(a)}, fill(TileRegion{a, {}}, Expr(0.0))));
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("lowering pipeline"), std::string::npos) << e.what();
  }
}

int64_t py_floordiv(int64_t a, int64_t b) {
  return static_cast<int64_t>(std::floor(static_cast<double>(a) / static_cast<double>(b)));
}

TEST(CodeGenC, FloorDivisionSemanticsInCompiledC) {
  for (DataType t : {DataType::Int32(), DataType::Int64()}) {
    Buffer out = make_buffer("out", {Expr(2)}, t);
    Param a = scalar("a", t), b = scalar("b", t);
    std::string src = print_stores({a, b}, out, {floordiv(a.var, b.var), floormod(a.var, b.var)});
    std::string ctype = t.bits == 64 ? "int64_t" : "int32_t";
    std::string main_body =
        "  for (int a = -9; a <= 9; ++a) for (int b = -4; b <= 4; ++b) {\n"
        "    if (b == 0) continue;\n    " +
        ctype +
        " r[2];\n    f(r, a, b);\n"
        "    printf(\"%d %d %lld %lld\\n\", a, b, (long long)r[0], (long long)r[1]);\n  }";
    std::istringstream lines(compile_and_run(src, main_body, "floordiv" + std::to_string(t.bits)));
    int64_t a_val, b_val, q, r;
    int checked = 0;
    while (lines >> a_val >> b_val >> q >> r) {
      EXPECT_EQ(q, py_floordiv(a_val, b_val)) << a_val << " // " << b_val;
      EXPECT_EQ(r, a_val - py_floordiv(a_val, b_val) * b_val) << a_val << " % " << b_val;
      ++checked;
    }
    EXPECT_EQ(checked, 19 * 8);
  }
}

TEST(CodeGenC, SixteenBitFloatsRoundAfterEveryOperation) {
  for (DataType t : {DataType::Float16(), DataType::BFloat16()}) {
    Buffer out = make_buffer("out", {Expr(2)}, t);
    Buffer in = make_buffer("in", {Expr(2)}, t);
    Expr x = load(in, {Expr(0)}), y = load(in, {Expr(1)});
    std::string src = print_stores({tensor(in)}, out, {x * y + x, x / y});
    // Inputs as raw 16-bit patterns; outputs printed as raw patterns.
    std::string main_body =
        "  for (unsigned i = 0; i < 4000; ++i) {\n"
        "    uint16_t in[2] = {(uint16_t)(0x3000 + i * 7), (uint16_t)(0x3400 + i * 13)};\n"
        "    uint16_t r[2];\n    f(r, in);\n"
        "    printf(\"%u %u %u %u\\n\", in[0], in[1], r[0], r[1]);\n  }";
    bool bf = t.is_bfloat16();
    std::istringstream lines(compile_and_run(src, main_body, bf ? "bf16" : "f16"));
    auto to_f = [&](unsigned h) { return bf ? bfloat16_to_float(h) : half_to_float(h); };
    auto round = [&](float v) { return bf ? float_to_bfloat16(v) : float_to_half(v); };
    unsigned hx, hy, r0, r1;
    int checked = 0;
    while (lines >> hx >> hy >> r0 >> r1) {
      float fx = to_f(hx), fy = to_f(hy);
      uint16_t expect0 = round(to_f(round(fx * fy)) + fx);
      uint16_t expect1 = round(fx / fy);
      if (std::isnan(fx) || std::isnan(fy)) continue;
      EXPECT_EQ(r0, expect0) << hx << " " << hy;
      EXPECT_EQ(r1, expect1) << hx << " " << hy;
      ++checked;
    }
    EXPECT_GT(checked, 3000);
  }
}

}  // namespace
}  // namespace tilec::codegen
