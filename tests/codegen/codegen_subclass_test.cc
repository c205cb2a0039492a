// A CodeGenC subclass overrides only what differs: a SIMT-style dialect binds
// thread-binding loops to thread indices, prints barriers and one expression its
// own way and inherits the rest; build_device_source drives any instance. The C
// defaults for the same IR (serial thread loops, barrier comments, extern calls as
// plain C calls) are compiled and run.
#include "tilec/backend/backend_error.h"
#include "tilec/codegen/codegen_c.h"
#include "tilec/codegen/device_source.h"

#include "compile_c.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace tilec::codegen {
namespace {

using namespace ir;

// An OpenCL-flavoured printer: only the hooks and printers it changes.
class SimtCodeGen : public CodeGenC {
 public:
  std::string source_format() const override { return "opencl"; }

 protected:
  std::string function_qualifiers(const PrimFunc&) override { return "__kernel"; }
  std::string thread_index(const std::string& tag) override {
    if (tag == "threadIdx.x") return "get_local_id(0)";
    return CodeGenC::thread_index(tag);
  }
  void print_thread_binding_loop(const ForNode* op) override { bind_loop_to_thread(op); }
  void print_barrier(const CallNode* op) override {
    line() << (op->name == "shared" ? "barrier(CLK_LOCAL_MEM_FENCE);\n"
                                    : "barrier(CLK_GLOBAL_MEM_FENCE);\n");
  }
  // exp becomes native_exp; every other intrinsic is the base's.
  Printed print_intrinsic_call(const CallNode* op) override {
    if (op->name != "exp") return CodeGenC::print_intrinsic_call(op);
    return {"native_exp(" + print(op->args[0]).text + ")", kPrimary};
  }
};

// for v in T.thread_binding(begin, end, thread=tag): body
Stmt thread_loop(Var v, Expr begin, Expr end, Stmt body, const std::string& tag) {
  Stmt loop = for_loop(std::move(v), std::move(begin), std::move(end), std::move(body),
                       ForKind::kThreadBinding);
  auto node = std::make_shared<ForNode>(*loop.as<ForNode>());
  node->thread_tag = tag;
  return Stmt(node);
}

// out[tx] = my_scale(in[tx], 2) + exp(in[tx]) for tx bound to threadIdx.x, a
// barrier, then out[0] = out[15].
PrimFunc simt_kernel() {
  Buffer in = make_buffer("in", {Expr(16)}, DataType::Float32());
  Buffer out = make_buffer("out", {Expr(16)}, DataType::Float32());
  Var tx = make_var("tx");
  Expr value = call_extern(DataType::Float32(), "my_scale", {load(in, {tx}), make_int(2)}) +
               call("exp", {load(in, {tx})});
  Stmt bound = thread_loop(tx, Expr(0), Expr(16), store(out, {tx}, value), "threadIdx.x");
  Stmt body = seq({bound, evaluate(barrier(StorageScope::kShared)),
                   store(out, {Expr(0)}, load(out, {Expr(15)}))});
  return make_prim_func("k", {Param{make_var("in"), in}, Param{make_var("out"), out}}, body);
}

TEST(CodeGenCSubclass, OverridesOnlyWhatDiffers) {
  SimtCodeGen gen;
  gen.add_function(simt_kernel());
  std::string c = gen.functions_text();
  EXPECT_NE(c.find("__kernel int32_t k(float* restrict in, float* restrict out)"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("const int32_t tx = get_local_id(0);"), std::string::npos) << c;
  EXPECT_EQ(c.find("for ("), std::string::npos) << c;
  EXPECT_NE(c.find("out[tx] = my_scale(in[tx], 2) + native_exp(in[tx]);"), std::string::npos) << c;
  EXPECT_NE(c.find("barrier(CLK_LOCAL_MEM_FENCE);"), std::string::npos) << c;
  // Inherited: the store and load printers of the base.
  EXPECT_NE(c.find("out[0] = out[15];"), std::string::npos) << c;
}

TEST(CodeGenCSubclass, CDefaultsRunThreadLoopsSeriallyAndCallExternFunctions) {
  CodeGenC gen;
  gen.add_function(simt_kernel());
  std::string c = gen.finish();
  EXPECT_NE(c.find("for (int32_t tx = 0; tx < 16; ++tx)"), std::string::npos) << c;
  EXPECT_NE(c.find("/* barrier (shared): "), std::string::npos) << c;
  EXPECT_NE(c.find("my_scale(in[tx], 2) + expf(in[tx])"), std::string::npos) << c;
  // C has no implicit declarations: the codegen declares what it calls.
  EXPECT_NE(c.find("float my_scale(float, int32_t);"), std::string::npos) << c;
  // The extern function is the program's own: C links the call as written.
  std::string out =
      compile_and_run(c + "float my_scale(float x, int32_t k) { return x * (float)k; }\n",
                      "  float in[16], out[16];\n"
                      "  for (int i = 0; i < 16; ++i) in[i] = (float)i / 8.0f;\n"
                      "  k(in, out);\n"
                      "  printf(\"%.6f %.6f\\n\", out[0], out[3]);",
                      "subclass_c_defaults");
  double out0 = 0, out3 = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "%lf %lf", &out0, &out3), 2) << out;
  auto expect = [](int i) { return float(i) / 8.0f * 2.0f + std::exp(float(i) / 8.0f); };
  EXPECT_NEAR(out0, expect(15), 1e-5);
  EXPECT_NEAR(out3, expect(3), 1e-5);
}

TEST(CodeGenCSubclass, ThreadIndexWithoutABindingIsAnError) {
  Buffer out = make_buffer("out", {Expr(4)}, DataType::Int32());
  Var ty = make_var("ty");
  Stmt loop = thread_loop(ty, Expr(0), Expr(4), store(out, {ty}, ty), "threadIdx.y");
  SimtCodeGen simt;
  try {
    simt.add_function(make_prim_func("k", {Param{make_var("out"), out}}, loop));
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("thread index 'threadIdx.y'"), std::string::npos)
        << e.what();
  }
}

TEST(CodeGenCSubclass, BarrierAsAValueIsAnError) {
  Buffer out = make_buffer("out", {Expr(1)}, DataType::Int32());
  CodeGenC gen;
  try {
    gen.add_function(make_prim_func("k", {Param{make_var("out"), out}},
                                    store(out, {Expr(0)}, barrier(StorageScope::kShared))));
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("a barrier is a statement"), std::string::npos)
        << e.what();
  }
}

TEST(BuildDeviceSource, DrivesAnyCodegenInstance) {
  PrimFunc device = with_attr(simt_kernel(), "tilec.function_kind", std::string("device"));
  PrimFunc host = with_attr(make_prim_func("h", {}, evaluate(make_int(0))), "tilec.function_kind",
                            std::string("host"));
  IRModule mod({host, device});
  target::Target target = target::Target::parse("c");
  SimtCodeGen gen;
  backend::CodeArtifact a = build_device_source(mod, target, gen);
  EXPECT_EQ(a.format, "opencl");
  EXPECT_EQ(a.entry_points, std::vector<std::string>{"k"});
  EXPECT_EQ(a.metadata.at("target"), target.str());
  EXPECT_NE(a.source.find("__kernel int32_t k("), std::string::npos) << a.source;
  EXPECT_EQ(a.source.find("int32_t h("), std::string::npos) << a.source;

  // The factory form: a fresh codegen per build, source only.
  backend::DeviceCodegen dc = make_device_codegen(
      "simt", [](const target::Target&) { return std::make_unique<SimtCodeGen>(); });
  EXPECT_EQ(dc.name, "simt");
  EXPECT_EQ(dc.codegen(mod, target, false), a);
  EXPECT_THROW(dc.codegen(mod, target, true), backend::BackendError);

  SimtCodeGen empty;
  try {
    build_device_source(IRModule({host}), target, empty);
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("no device function"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilec::codegen
