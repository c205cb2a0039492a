// A CPU-family backend whose device codegen is plain codegen::CodeGenC (no task
// functions) instead of cpu::CodeGenCDevice: compile() refuses it at codegen time, naming
// the task function the host code calls and what to subclass, instead of the kernel
// failing when loaded with "undefined symbol".
#include "tilec/backend/module.h"
#include "tilec/codegen/device_source.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cpu/pipeline.h"
#include "tilec/engine/compile.h"
#include "tilec/engine/engine_error.h"
#include "tilec/engine/initialize.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/frontend/parser.h"
#include "tilec/target/kind_schema.h"
#include "tilec/target/registration_journal.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

constexpr const char* kKernel = R"(import tilelang.language as T


@T.prim_func
def doubled(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(4, threads=16) as bx:
        for i in T.Parallel(16):
            B[bx * 16 + i] = A[bx * 16 + i] * 2.0
)";

backend::BackendModule plain_c_module() {
  backend::ExecutionBackendSpec native{
      .name = "native",
      .is_available = [] { return exec::is_execution_backend_available("native"); },
      .supports_target = std::nullopt,
      .enable_host_codegen = true,
      .enable_device_compile = false};
  return backend::BackendModule{
      .name = "plain_c_test",
      .target_kinds = {"plain_c_test"},
      .pipelines = {{"plain_c_test", cpu::make_cpu_pipeline()}},
      .device_codegens = {{"plain_c_test", codegen::make_device_codegen(
                                               "plain_c_device",
                                               [](const target::Target&) {
                                                 return std::make_unique<codegen::CodeGenC>();
                                               })}},
      .execution_backends = {native},
      .supports_target = std::nullopt,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {},
      .callbacks = {}};
}

TEST(TaskEntryCheck, APlainCodeGenCDeviceIsRefusedAtCodegenNamingTheTaskFunction) {
  initialize();
  target::RegistrationTransaction undo_at_end;  // never committed: the test leaves no trace
  target::register_target_kind({"plain_c_test", {}, {"plain_c_test", "cpu"}, "test kind"});
  backend::register_backend(plain_c_module());
  ir::IRModule mod = ir::parse_kernel_source(kKernel);
  for (const char* host : {"c", "llvm"}) {
#ifndef TILEC_HAVE_LLVM
    if (std::string(host) == "llvm") continue;
#endif
    try {
      compile(mod, "plain_c_test", std::string(host), "native");
      ADD_FAILURE() << "compiled with a device codegen that defines no task function (host " << host
                    << ")";
    } catch (const EngineError& e) {
      std::string message = e.what();
      for (const char* part :
           {"'doubled_kernel_task'", "'plain_c_device' does not define", "cpu::CodeGenCDevice"})
        EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;
    }
  }
}

}  // namespace
}  // namespace tilec
