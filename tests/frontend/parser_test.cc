// Parser of the TileLang DSL subset: every construct maps to the expected IR, and
// every error names file:line:col, shows the line with a caret and a hint.
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tilec::ir {
namespace {

const char* kHeader = "import tilelang\nimport tilelang.language as T\n";

IRModule parse(const std::string& body, std::map<std::string, std::string> defines = {}) {
  ParseOptions options;
  options.filename = "k.py";
  options.defines = std::move(defines);
  return parse_kernel_source(std::string(kHeader) + body, options);
}

// The statement inside `with T.Kernel(...)` of the first function.
Stmt kernel_body(const IRModule& m) {
  auto* k = m.functions().at(0)->body.as<KernelNode>();
  EXPECT_NE(k, nullptr);
  return k ? k->body : Stmt();
}

// Unwraps Allocate/Let chains and one-element paths to the n-th leaf statement.
std::vector<Stmt> leaves(const Stmt& s) {
  std::vector<Stmt> out;
  std::vector<Stmt> stack{s};
  while (!stack.empty()) {
    Stmt cur = stack.back();
    stack.pop_back();
    if (!cur) continue;
    if (auto* q = cur.as<SeqNode>()) {
      for (auto it = q->stmts.rbegin(); it != q->stmts.rend(); ++it) stack.push_back(*it);
    } else if (auto* a = cur.as<AllocateNode>()) {
      stack.push_back(a->body);
    } else if (auto* l = cur.as<LetNode>()) {
      stack.push_back(l->body);
    } else {
      out.push_back(cur);
    }
  }
  return out;
}

TEST(Parser, ConstantsShapesAndKernel) {
  IRModule m = parse(
      "M = 64\nK = M * 2\ndtype = \"float16\"\n"
      "@T.prim_func\n"
      "def main(A: T.Tensor((M, K), dtype), n: T.int32):\n"
      "    with T.Kernel(T.ceildiv(K, 32), 2, threads=(64, 2)) as (bx, by):\n"
      "        A[bx, by] = 1\n");
  ASSERT_EQ(m.size(), 1u);
  const PrimFunc& f = m.functions()[0];
  EXPECT_EQ(f->name, "main");
  ASSERT_EQ(f->params.size(), 2u);
  const Buffer& a = f->params[0].buffer;
  EXPECT_EQ(a->dtype, DataType::Float16());
  EXPECT_TRUE(is_const_int(a->shape[0], 64));
  EXPECT_TRUE(is_const_int(a->shape[1], 128));
  EXPECT_FALSE(f->params[1].is_buffer());
  EXPECT_EQ(f->params[1].var.dtype(), DataType::Int32());
  auto* k = f->body.as<KernelNode>();
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(is_const_int(k->grid[0], 4));  // ceildiv of constants folds
  EXPECT_EQ(k->threads, (std::vector<int64_t>{64, 2}));
  EXPECT_EQ(k->block_vars[1].name(), "by");
  EXPECT_EQ(k->span.line, 8);  // two import lines precede the body
  auto* st = k->body.as<StoreNode>();
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->value.as<FloatImmNode>()->dtype, DataType::Float16());
}

TEST(Parser, DefinesOverrideConstantsAndSymbolicDims) {
  std::string src =
      "M = T.symbolic(\"M\")\nN = 128\ndtype = \"float32\"\n"
      "@T.prim_func\n"
      "def f(A: T.Tensor((M, N), dtype)):\n"
      "    with T.Kernel(1) as bx:\n"
      "        T.clear(A)\n";
  IRModule symbolic = parse(src);
  EXPECT_NE(symbolic.functions()[0]->params[0].buffer->shape[0].as<VarNode>(), nullptr);
  IRModule fixed = parse(src, {{"M", "32"}, {"N", "16"}, {"dtype", "float16"}});
  const Buffer& b = fixed.functions()[0]->params[0].buffer;
  EXPECT_TRUE(is_const_int(b->shape[0], 32));
  EXPECT_TRUE(is_const_int(b->shape[1], 16));
  EXPECT_EQ(b->dtype, DataType::Float16());
  try {
    parse(src, {{"BLOCK", "4"}});
    FAIL() << "unknown define accepted";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("defines no constant 'BLOCK'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("M, N, dtype"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse(src, {{"N", "abc"}}), SourceError);
}

TEST(Parser, ImportFormsAndReadOnly) {
  ParseOptions o;
  IRModule m = parse_kernel_source(
      "from tilelang import language as T\n"
      "@T.prim_func\n"
      "def f(A: T.Buffer([8], \"int8\", read_only=True), B: T.Tensor((8,), \"int8\")):\n"
      "    with T.Kernel(1, threads=32) as bx:\n"
      "        T.copy(A, B)\n",
      o);
  EXPECT_TRUE(m.functions()[0]->params[0].buffer->read_only);
  EXPECT_FALSE(m.functions()[0]->params[1].buffer->read_only);
  EXPECT_EQ(m.functions()[0]->params[0].buffer->dtype, DataType::Int(8));
}

TEST(Parser, AllocationsVarsAndLets) {
  IRModule m = parse(
      "@T.prim_func\n"
      "def f(A: T.Tensor((16, 16), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        s = T.alloc_shared((16, 16), \"float16\")\n"
      "        frag = T.alloc_fragment((16,), \"float32\")\n"
      "        loc = T.alloc_local([4], \"int32\")\n"
      "        acc = T.alloc_var(\"float32\", init=0)\n"
      "        base = bx * 16\n"
      "        acc = acc + 1.5\n"
      "        acc += A[base, 0]\n");
  Stmt body = kernel_body(m);
  auto* s = body.as<AllocateNode>();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->buffer->scope, StorageScope::kShared);
  auto* frag = s->body.as<AllocateNode>();
  EXPECT_EQ(frag->buffer->scope, StorageScope::kFragment);
  auto* loc = frag->body.as<AllocateNode>();
  EXPECT_EQ(loc->buffer->scope, StorageScope::kLocal);
  auto* acc = loc->body.as<AllocateNode>();
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->buffer->scope, StorageScope::kVar);
  ASSERT_TRUE(acc->init.has_value());
  EXPECT_EQ(acc->init->dtype(), DataType::Float32());
  auto* let = acc->body.as<LetNode>();
  ASSERT_NE(let, nullptr);
  EXPECT_EQ(let->var.name(), "base");
  auto stores = leaves(let->body);
  ASSERT_EQ(stores.size(), 2u);
  auto* first = stores[0].as<StoreNode>();
  EXPECT_EQ(first->buffer, acc->buffer);
  EXPECT_TRUE(is_const_int(first->indices[0], 0));
  auto* sum = stores[1].as<StoreNode>()->value.as<BinaryNode>();
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->op, BinaryOp::kAdd);
  EXPECT_EQ(sum->a.as<LoadNode>()->buffer, acc->buffer);
}

TEST(Parser, Loops) {
  IRModule m = parse(
      "@T.prim_func\n"
      "def f(A: T.Tensor((64, 64), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        for i, j in T.Parallel(64, 32):\n"
      "            A[i, j] = 0\n"
      "        for k in T.Pipelined(8, num_stages=3):\n"
      "            A[k, 0] = 1\n"
      "        for a in T.serial(2, 6):\n"
      "            A[a, 0] = 1\n"
      "        for b in range(10, 0, -2):\n"
      "            A[b, 0] = 1\n"
      "        for c in range(4):\n"
      "            A[c, 0] = 1\n"
      "        for v in T.vectorized(4):\n"
      "            A[v, 0] = 1\n"
      "        for u in T.unroll(4):\n"
      "            A[u, 0] = 1\n");
  auto loops = leaves(kernel_body(m));
  ASSERT_EQ(loops.size(), 7u);
  auto* outer = loops[0].as<ForNode>();
  EXPECT_EQ(outer->for_kind, ForKind::kParallel);
  auto* inner = outer->body.as<ForNode>();
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->for_kind, ForKind::kParallel);
  EXPECT_TRUE(is_const_int(inner->end, 32));
  auto* pipe = loops[1].as<ForNode>();
  EXPECT_EQ(pipe->for_kind, ForKind::kPipelined);
  EXPECT_EQ(pipe->num_stages, 3);
  auto* serial = loops[2].as<ForNode>();
  EXPECT_TRUE(is_const_int(serial->begin, 2));
  EXPECT_TRUE(is_const_int(serial->end, 6));
  EXPECT_EQ(loops[3].as<ForNode>()->step, -2);
  EXPECT_EQ(loops[4].as<ForNode>()->for_kind, ForKind::kSerial);
  EXPECT_EQ(loops[5].as<ForNode>()->for_kind, ForKind::kVectorized);
  EXPECT_EQ(loops[6].as<ForNode>()->for_kind, ForKind::kUnrolled);
}

TEST(Parser, IfElifElse) {
  IRModule m = parse(
      "@T.prim_func\n"
      "def f(A: T.Tensor((4,), \"int32\"), n: T.int32):\n"
      "    with T.Kernel(1) as bx:\n"
      "        if n < 1:\n"
      "            A[0] = 1\n"
      "        elif n == 2:\n"
      "            A[0] = 2\n"
      "        else:\n"
      "            A[0] = 3\n");
  auto* top = kernel_body(m).as<IfNode>();
  ASSERT_NE(top, nullptr);
  auto* elif = top->else_case.as<IfNode>();
  ASSERT_NE(elif, nullptr);
  EXPECT_EQ(elif->cond.as<BinaryNode>()->op, BinaryOp::kEQ);
  EXPECT_NE(elif->else_case.as<StoreNode>(), nullptr);
}

Expr parse_value(const std::string& e, const std::string& params = "x: T.float32, n: T.int32") {
  IRModule m = parse(
      "@T.prim_func\n"
      "def f(O: T.Tensor((1,), \"float32\"), " +
      params +
      "):\n"
      "    with T.Kernel(1) as bx:\n"
      "        r = " +
      e + "\n");
  return kernel_body(m).as<LetNode>()->value;
}

TEST(Parser, ExpressionsFollowPythonPrecedence) {
  Expr add_expr = parse_value("n + n * 2");
  auto* add = add_expr.as<BinaryNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->op, BinaryOp::kAdd);
  EXPECT_EQ(add->b.as<BinaryNode>()->op, BinaryOp::kMul);
  Expr neg_expr = parse_value("-n // 2");
  auto* neg = neg_expr.as<BinaryNode>();
  EXPECT_EQ(neg->op, BinaryOp::kFloorDiv);
  EXPECT_NE(neg->a.as<UnaryNode>(), nullptr);
  Expr pow_expr = parse_value("x ** 2");
  auto* pow = pow_expr.as<CallNode>();
  ASSERT_NE(pow, nullptr);
  EXPECT_EQ(pow->name, "pow");
  Expr chained_expr = parse_value("0 < n < 8");
  auto* chained = chained_expr.as<BinaryNode>();
  EXPECT_EQ(chained->op, BinaryOp::kAnd);
  EXPECT_NE(parse_value("x if n > 0 else 0.0").as<SelectNode>(), nullptr);
  EXPECT_NE(parse_value("T.if_then_else(n > 0, x, 0.0)").as<SelectNode>(), nullptr);
  Expr logic_expr = parse_value("not n > 1 or n < 0 and True");
  auto* logic = logic_expr.as<BinaryNode>();
  EXPECT_EQ(logic->op, BinaryOp::kOr);
  EXPECT_EQ(parse_value("T.max(x, 0.0)").as<BinaryNode>()->op, BinaryOp::kMax);
  EXPECT_EQ(parse_value("T.fma(x, x, x)").as<CallNode>()->args.size(), 3u);
  EXPECT_EQ(parse_value("x % 2.0").as<BinaryNode>()->op, BinaryOp::kFloorMod);
}

TEST(Parser, TypedConstantsCastsAndInfinity) {
  Expr h = parse_value("T.float16(1.5)");
  ASSERT_NE(h.as<FloatImmNode>(), nullptr);
  EXPECT_EQ(h.dtype(), DataType::Float16());
  EXPECT_EQ(parse_value("T.int64(3)").dtype(), DataType::Int64());
  EXPECT_NE(parse_value("T.float16(x)").as<CastNode>(), nullptr);
  EXPECT_EQ(parse_value("T.cast(n, \"bfloat16\")").dtype(), DataType::BFloat16());
  Expr inf = parse_value("-T.infinity(\"float16\")");
  ASSERT_NE(inf.as<FloatImmNode>(), nullptr);
  EXPECT_TRUE(std::isinf(inf.as<FloatImmNode>()->value) && inf.as<FloatImmNode>()->value < 0);
  EXPECT_TRUE(is_const_int(parse_value("(7 + 2) // 2 - 7 % 3"), 3));
  EXPECT_TRUE(is_const_int(parse_value("-7 // 2"), -4));  // Python floor division
  EXPECT_EQ(parse_value("True").dtype(), DataType::Bool());
}

TEST(Parser, TileOperations) {
  IRModule m = parse(
      "@T.prim_func\n"
      "def f(A: T.Tensor((64, 64), \"float16\"), C: T.Tensor((64, 64), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        a = T.alloc_shared((16, 16), \"float16\")\n"
      "        c = T.alloc_fragment((16, 16), \"float32\")\n"
      "        m = T.alloc_fragment((16,), \"float32\")\n"
      "        T.copy(A[0:16, 16:], a)\n"
      "        T.copy(A[bx * 16, 0], a)\n"
      "        T.fill(c, 1)\n"
      "        T.clear(c)\n"
      "        T.gemm(a, a, c, True, transpose_B=True)\n"
      "        T.reduce_max(c, m, dim=-1, clear=False)\n"
      "        T.reduce_absmax(c, m, 0)\n");
  auto ops = leaves(kernel_body(m));
  ASSERT_EQ(ops.size(), 7u);
  auto* slice = ops[0].as<CopyNode>();
  ASSERT_EQ(slice->src.dims.size(), 2u);
  EXPECT_TRUE(is_const_int(*slice->src.dims[1].stop, 64));  // `16:` runs to the end
  EXPECT_TRUE(ops[1].as<CopyNode>()->src.is_point());
  EXPECT_EQ(ops[2].as<FillNode>()->value.dtype(), DataType::Float32());
  EXPECT_EQ(ops[3].as<FillNode>()->value.as<FloatImmNode>()->value, 0.0);
  auto* g = ops[4].as<GemmNode>();
  EXPECT_TRUE(g->transpose_a && g->transpose_b && !g->clear_accum);
  auto* r = ops[5].as<ReduceNode>();
  EXPECT_EQ(r->reduce_kind, ReduceKind::kMax);
  EXPECT_EQ(r->dim, 1);
  EXPECT_FALSE(r->clear);
  EXPECT_EQ(ops[6].as<ReduceNode>()->reduce_kind, ReduceKind::kAbsMax);
}

TEST(Parser, MultipleFunctionsAndDocstrings) {
  IRModule m = parse(
      "\"\"\"module docs\"\"\"\n"
      "@T.prim_func\n"
      "def one(A: T.Tensor((4,), \"float32\")):\n"
      "    \"\"\"kernel docs\"\"\"\n"
      "    with T.Kernel(1) as bx:\n"
      "        pass\n"
      "@T.prim_func\n"
      "def two(A: T.Tensor((4,), \"float32\")):\n"
      "    with T.Kernel(1) as bx: A[0] = 1.0\n");
  EXPECT_EQ(m.size(), 2u);
  EXPECT_TRUE(m.contains("two"));
}

// ---- errors: location, caret and hint ----
void expect_error(const std::string& body, int line, int col, const std::string& message,
                  const std::string& hint = "") {
  try {
    parse(body);
    FAIL() << "accepted: " << body;
  } catch (const SourceError& e) {
    std::string what = e.what();
    int header_lines = 2;
    EXPECT_EQ(e.span().line, line + header_lines) << what;
    EXPECT_EQ(e.span().col, col) << what;
    std::string prefix =
        "k.py:" + std::to_string(line + header_lines) + ":" + std::to_string(col) + ": error: ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(message), std::string::npos) << what;
    EXPECT_NE(what.find("\n" + std::string(size_t(col - 1), ' ') + "^"), std::string::npos) << what;
    if (!hint.empty()) {
      EXPECT_NE(e.hint().find(hint), std::string::npos) << what;
    }
  }
}

const std::string kFn =
    "@T.prim_func\n"
    "def f(A: T.Tensor((8, 8), \"float32\"), n: T.int32):\n"
    "    with T.Kernel(1) as bx:\n";

TEST(ParserErrors, UnsupportedSyntax) {
  expect_error(kFn + "        break\n", 4, 9, "'break' is not supported in kernel files");
  expect_error(kFn + "        r = lambda x: x\n", 4, 13, "lambda");
  expect_error(kFn + "        r = A @ A\n", 4, 15, "operator '@'", "T.gemm");
  expect_error(kFn + "        return n\n", 4, 9, "'return' is not allowed inside a kernel");
  expect_error(kFn + "        a, b = n\n", 4, 16, "only a tuple of values can be unpacked");
}

TEST(ParserErrors, WhileLoops) {
  expect_error(kFn + "        while True:\n            pass\n", 4, 15,
               "this while loop never ends: its condition is always true", "T.alloc_var");
  expect_error(kFn + "        while n:\n            pass\n        else:\n            pass\n", 6, 9,
               "'while ... else' is not supported");
  expect_error(kFn + "        while A[0, 0]:\n            pass\n", 4, 15,
               "the condition of a while loop is a float32 value", "while x > 0.0");
}

TEST(ParserErrors, CallsAndArguments) {
  expect_error(kFn + "        T.foo(A)\n", 4, 9, "unknown function T.foo", "T.copy");
  expect_error(kFn + "        r = T.bar(n)\n", 4, 13, "unknown function T.bar", "exp");
  expect_error(kFn + "        T.gemm(A, A, A, polcy=1)\n", 4, 25,
               "unexpected keyword argument 'polcy'",
               "transpose_A, transpose_B, policy, clear_accum, k_pack");
  expect_error(kFn + "        r = T.exp(n, n)\n", 4, 13, "T.exp takes 1 argument(s), got 2");
  expect_error(kFn + "        T.copy(A)\n", 4, 9, "missing argument 'dst'");
  expect_error(kFn + "        s = T.alloc_shared((8, 8), \"float17\")\n", 4, 36,
               "unknown dtype 'float17'", "float16");
  expect_error(kFn + "        T.reduce_sum(A, A, dim=2)\n", 4, 32, "dim 2 is out of range");
}

TEST(ParserErrors, NamesAndTypes) {
  expect_error(kFn + "        A[0, 0] = undefined_name\n", 4, 19,
               "name 'undefined_name' is not defined");
  expect_error(kFn + "        r = n / 2\n", 4, 15,
               "'/' on integer operands (int32, int32) is not allowed: use '//'");
  expect_error(kFn + "        r = n\n        r = 2\n", 5, 9, "cannot rebind 'r'", "T.alloc_var");
  expect_error(kFn + "        r = n\n        r += 2\n", 5, 9, "cannot modify 'r'", "T.alloc_var");
  expect_error(kFn + "        r = A\n", 4, 13, "buffer 'A' is used as a value", "A[i, j]");
  expect_error(kFn + "        for i in T.loop(4):\n            pass\n", 4, 18,
               "unsupported loop iterable", "T.Parallel, T.serial, T.Pipelined, range");
  expect_error(kFn + "        for i, j in T.Parallel(4):\n            pass\n", 4, 13,
               "binds 2 variable(s)");
  expect_error(kFn + "        A[0, 0] = A[0]\n", 4, 19, "has 2 dimensions but is indexed with 1");
  expect_error(kFn + "        with T.Kernel(1) as by:\n            pass\n", 4, 9,
               "T.Kernel cannot be nested");
}

TEST(ParserErrors, ModuleLevel) {
  // Imports and statements outside the subset are skipped until kernel code needs them;
  // the error then points at the skipped statement.
  expect_error("import torch\n" + kFn + "        A[0, 0] = torch.pi\n", 1, 1,
               "unsupported import of 'torch'", "kernel code uses 'torch'");
  expect_error("def f(A: T.Tensor((4,), \"float32\")):\n    pass\n", 1, 1,
               "not decorated with @T.prim_func");
  expect_error("@T.foo\n@T.prim_func\ndef f():\n    pass\n", 1, 2, "unsupported decorator");
  expect_error("M = T.symbolic(\"M\")\nX = M * 2\n" + kFn + "        A[0, 0] = X\n", 2, 5,
               "is not a constant number", "arithmetic of earlier number constants");
  expect_error("@T.prim_func\ndef f(A):\n    pass\n", 2, 7, "has no annotation");
  try {
    parse_kernel_source("@T.prim_func\ndef f(A: T.Tensor((4,), \"float32\")):\n    pass\n");
    FAIL();
  } catch (const SourceError& e) {
    EXPECT_EQ(e.span().line, 1);  // the T of @T.prim_func
    EXPECT_EQ(e.span().col, 2);
    EXPECT_NE(e.hint().find("import tilelang.language as T"), std::string::npos) << e.what();
  }
}

TEST(ParserErrors, DeepNestingIsRejectedNotCrashing) {
  std::string deep = kFn + "        r = " + std::string(150, '-') + "n\n";
  EXPECT_NO_THROW(parse(deep));
  std::string too_deep = kFn + "        r = " + std::string(5000, '-') + "n\n";
  EXPECT_THROW(parse(too_deep), SourceError);
  std::string long_chain = kFn + "        r = n";
  for (int i = 0; i < 3000; ++i) long_chain += " + n";
  EXPECT_THROW(parse(long_chain + "\n"), SourceError);
  std::string ifs = kFn;
  for (int i = 0; i < 300; ++i) ifs += std::string(size_t(8 + 4 * i), ' ') + "if n:\n";
  EXPECT_THROW(parse(ifs + std::string(8 + 4 * 300, ' ') + "pass\n"), SourceError);
}

TEST(ParserErrors, FileAndDefineErrors) {
  EXPECT_THROW(parse_kernel_file("/nonexistent/kernel.py"), IRError);
  EXPECT_THROW(parse_define("M"), IRError);
  EXPECT_THROW(parse_define("1M=3"), IRError);
  EXPECT_EQ(parse_define("M=2048"), (std::pair<std::string, std::string>{"M", "2048"}));
}

}  // namespace
}  // namespace tilec::ir
