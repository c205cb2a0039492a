// Call kinds: extern calls and barriers next to math intrinsics. Each kind keeps its
// identity through the factories, structural equality and hash, the mutator, the
// printer/parser round trip and the interpreter (barrier: no-op; extern: error).
#include "tilec/interp/interpreter.h"
#include "tilec/ir/mutator.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/structural.h"

#include <gtest/gtest.h>

#include <functional>

namespace tilec::ir {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const IRError& e) {
    return e.what();
  }
  return "";
}

TEST(CallKinds, FactoriesSetTheKind) {
  Expr x = make_var("x", DataType::Float32());
  Expr ext = call_extern(DataType::Float32(), "my_scale", {x, make_int(2)});
  auto* c = ext.as<CallNode>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->call_kind, CallKind::kExtern);
  EXPECT_EQ(c->name, "my_scale");
  // Arguments keep their dtypes: nothing converts the int to the result type.
  EXPECT_EQ(c->args[1].dtype(), DataType::Int32());
  EXPECT_EQ(call("exp", {x}).as<CallNode>()->call_kind, CallKind::kIntrinsic);

  Expr b = barrier(StorageScope::kShared);
  ASSERT_NE(as_barrier(b), nullptr);
  EXPECT_EQ(as_barrier(b)->name, "shared");
  EXPECT_EQ(b.dtype(), DataType::Int32());
  EXPECT_EQ(as_barrier(ext), nullptr);
  EXPECT_STREQ(to_string(CallKind::kBarrier), "barrier");
}

TEST(CallKinds, BadArgumentsAreNamed) {
  EXPECT_NE(error_of([] {
              call_extern(DataType::Float32(), "not a name", {});
            }).find("'not a name' is not a C identifier"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              call_extern(DataType::Float32(), "f", {Expr()});
            }).find("argument 0 of extern call 'f' is undefined"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              barrier(StorageScope::kFragment);
            }).find("'shared' or 'global', not 'local.fragment'"),
            std::string::npos);
}

TEST(CallKinds, StructuralEqualityAndHashDistinguishKinds) {
  Expr x = make_float(2.0);
  // Same name, same dtype, same argument: only the kind differs.
  Expr intrinsic = call("exp", {x});
  Expr ext = call_extern(DataType::Float32(), "exp", {x});
  EXPECT_FALSE(structural_equal(intrinsic, ext));
  EXPECT_NE(structural_hash(intrinsic), structural_hash(ext));
  EXPECT_TRUE(structural_equal(ext, call_extern(DataType::Float32(), "exp", {x})));
  EXPECT_EQ(structural_hash(ext), structural_hash(call_extern(DataType::Float32(), "exp", {x})));
  EXPECT_FALSE(structural_equal(barrier(StorageScope::kShared), barrier(StorageScope::kGlobal)));
  EXPECT_NE(structural_hash(barrier(StorageScope::kShared)),
            structural_hash(barrier(StorageScope::kGlobal)));
}

// Rewrites every float literal 2.0 into 3.0, forcing the mutator to rebuild calls.
class TwoToThree : public ExprMutator {
 protected:
  Expr mutate_float_imm(const FloatImmNode* op, const Expr& self) override {
    return op->value == 2.0 ? make_float(3.0, op->dtype) : self;
  }
};

TEST(CallKinds, MutatorRebuildsAnExternCallAsExtern) {
  Expr ext = call_extern(DataType::Float32(), "exp", {make_float(2.0)});
  Expr out = TwoToThree{}.mutate(ext);
  ASSERT_FALSE(out.same_as(ext));
  EXPECT_TRUE(structural_equal(out, call_extern(DataType::Float32(), "exp", {make_float(3.0)})));
}

TEST(CallKinds, PrintedFormParsesBack) {
  const char* source = R"(import tilelang.language as T


@T.prim_func
def f(A: T.Tensor((16,), "float32"), B: T.Tensor((16,), "float32")):
    with T.Kernel(1, threads=16) as bx:
        for i in T.Parallel(16):
            B[i] = T.call_extern("float32", "my_scale", A[i], 2) + T.exp(A[i])
        T.evaluate(T.tvm_storage_sync("shared"))
        B[0] = T.call_extern("float32", "my_zero")
        T.evaluate(T.tvm_storage_sync("global"))
)";
  IRModule m = parse_kernel_source(source);
  std::string text = print(m);
  EXPECT_NE(text.find("T.call_extern(\"float32\", \"my_scale\", A[i], 2) + T.exp(A[i])"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("T.call_extern(\"float32\", \"my_zero\")"), std::string::npos) << text;
  EXPECT_NE(text.find("T.evaluate(T.tvm_storage_sync(\"shared\"))"), std::string::npos) << text;
  EXPECT_NE(text.find("T.evaluate(T.tvm_storage_sync(\"global\"))"), std::string::npos) << text;
  IRModule again = parse_kernel_source(text);
  EXPECT_TRUE(structural_equal(m, again)) << text;
  EXPECT_EQ(structural_hash(m), structural_hash(again));
  EXPECT_EQ(print(again), text);
}

TEST(CallKinds, ParserNamesWhatIsWrong) {
  auto parse_body = [](const std::string& line) {
    return error_of([&] {
      parse_kernel_source(
          "import tilelang.language as T\n\n@T.prim_func\n"
          "def f(A: T.Tensor((4,), \"float32\")):\n"
          "    with T.Kernel(1) as bx:\n        " +
          line + "\n");
    });
  };
  // SourceError (an IRError) carries the factory's message with the location.
  std::string e1 = parse_body("A[0] = T.call_extern(\"float32\", A[0])");
  std::string e2 = parse_body("T.evaluate(T.tvm_storage_sync(\"local\"))");
  std::string e3 = parse_body("A[0] = T.call_extern(\"float32\", \"1bad\")");
  EXPECT_NE(e1.find("T.call_extern takes a dtype, the function name as a string"),
            std::string::npos)
      << e1;
  EXPECT_NE(e2.find("'shared' or 'global', not 'local'"), std::string::npos) << e2;
  EXPECT_NE(e3.find("'1bad' is not a C identifier"), std::string::npos) << e3;
}

Param tensor_param(const Buffer& b) {
  return Param{make_var(b->name, DataType::Int64()), b};
}

TEST(CallKinds, InterpreterRunsBarriersAsNoOpsAndRejectsExternCalls) {
  Var i = make_var("i");
  Buffer out = make_buffer("Out", {Expr(4)}, DataType::Float32());
  auto f = make_prim_func(
      "sync", {tensor_param(out)},
      seq({for_loop(i, Expr(0), Expr(4), store(out, {Expr(i)}, cast(DataType::Float32(), i))),
           evaluate(barrier(StorageScope::kShared)),
           store(out, {Expr(0)}, load(out, {Expr(3)}) + make_float(1.0))}));
  HostTensor tout(DataType::Float32(), {4});
  interpret(f, {tout.view()});
  EXPECT_EQ(tout.get(0), 4.0);
  EXPECT_EQ(tout.get(3), 3.0);

  auto g = make_prim_func(
      "ext", {tensor_param(out)},
      store(out, {Expr(0)}, call_extern(DataType::Float32(), "my_scale", {make_float(1.0)})));
  std::string e = error_of([&] { interpret(g, {tout.view()}); });
  EXPECT_NE(e.find("the interpreter cannot run the extern call 'my_scale'"), std::string::npos)
      << e;
}

}  // namespace
}  // namespace tilec::ir
