// A device codegen that subclasses the cpu backend's CodeGenCDevice and goes
// through codegen::make_device_codegen runs a kernel through the normal cpu path
// (lowering, host codegen, native build) and matches the interpreter.
#include "tilec/codegen/device_source.h"
#include "tilec/codegen/runtime_abi_text.h"
#include "tilec/cpu/codegen_c_device.h"
#include "tilec/frontend/parser.h"

#include "run_on_cpu.h"

#include <gtest/gtest.h>

namespace tilec::cpu {
namespace {

using namespace ir;

// Its own qualifier, float multiplication through its own macro, its own barrier
// text; everything else is inherited.
class AuditedDevice : public CodeGenCDevice {
 public:
  std::string device_declarations() override {
    return CodeGenCDevice::device_declarations() + "#define AUDITED_MUL(a, b) ((a) * (b))\n";
  }

 protected:
  std::string function_qualifiers(const PrimFunc&) override {
    return "static __attribute__((noinline))";
  }
  Printed print_binary(const BinaryNode* op) override {
    if (op->op != BinaryOp::kMul || op->dtype != DataType::Float32())
      return CodeGenCDevice::print_binary(op);
    return {"AUDITED_MUL(" + print(op->a).text + ", " + print(op->b).text + ")", kPrimary};
  }
  void print_barrier(const CallNode* op) override {
    line() << "/* audited barrier: " << op->name << " */\n";
  }
};

constexpr const char* kKernel = R"(import tilelang.language as T


@T.prim_func
def mirror(A: T.Tensor((64,), "float32", read_only=True), B: T.Tensor((64,), "float32")):
    with T.Kernel(4, threads=16) as bx:
        s = T.alloc_shared((16,), "float32")
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            s[tx] = A[bx * 16 + tx] * 2.0
        T.evaluate(T.tvm_storage_sync("shared"))
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            B[bx * 16 + tx] = s[15 - tx] * 3.0 + 1.0
)";

TEST(DeviceCodegenSubclass, RunsThroughTheCpuPathAndMatchesTheInterpreter) {
  backend::DeviceCodegen audited = codegen::make_device_codegen(
      "audited", [](const target::Target&) { return std::make_unique<AuditedDevice>(); });
  testing::CpuRunResult r =
      testing::run_and_compare(parse_kernel_source(kKernel), "mirror", {}, 7, &audited);
  EXPECT_TRUE(r.ok) << r.report << r.device_source;
  const std::string& c = r.device_source;
  EXPECT_NE(c.find("static __attribute__((noinline)) int32_t mirror_kernel("), std::string::npos)
      << c;
  EXPECT_NE(c.find("#define AUDITED_MUL(a, b)"), std::string::npos) << c;
  EXPECT_NE(c.find("AUDITED_MUL("), c.rfind("#define AUDITED_MUL")) << c;
  EXPECT_NE(c.find("/* audited barrier: shared */"), std::string::npos) << c;
  // The task entry is still CodeGenCDevice's.
  EXPECT_NE(c.find("int32_t mirror_kernel_task(int64_t begin, int64_t end, void* closure)"),
            std::string::npos)
      << c;
  // The host code embeds runtime/abi.h as generated from the header.
  EXPECT_NE(r.host_source.find(codegen::runtime_abi_c_declarations()), std::string::npos);
}

}  // namespace
}  // namespace tilec::cpu
