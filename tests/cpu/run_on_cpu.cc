#include "run_on_cpu.h"
#include "build_paths.h"

#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cpu/codegen_c_device.h"
#include "tilec/cpu/pipeline.h"
#include "tilec/exec/native_backend.h"
#include "tilec/runtime/dlpack_tensor.h"
#include "tilec/runtime/runtime_env.h"

#include <filesystem>
#include <memory>
#include <stdexcept>

namespace tilec::cpu::testing {

CpuRunResult run_and_compare(const ir::IRModule& mod, const std::string& function,
                             const std::map<std::string, int64_t>& values, uint64_t seed,
                             const backend::DeviceCodegen* device_codegen) {
  target::Target target = target::Target::parse("c");
  ir::IRModule lowered = make_cpu_pipeline().lower(mod, target);
  backend::CodeArtifact host = codegen::generate_c_host(lowered, target);
  backend::CodeArtifact device = device_codegen ? device_codegen->codegen(lowered, target, false)
                                                : generate_c_device(lowered, target);
  auto native = exec::make_native_execution_backend();
  std::filesystem::path dir =
      std::filesystem::path(TILEC_BINARY_DIR) / "test-cpu" / (function + std::to_string(seed));
  std::filesystem::create_directories(dir);
  exec::BuiltModule built = native->build(host, device, target, target, dir);

  const ir::PrimFunc& func = mod.lookup(function);
  ir::RandomArgs expected = ir::make_random_args(func, values, seed);
  std::vector<ir::HostTensor> actual = expected.tensors;  // deep copies
  std::vector<std::unique_ptr<runtime::DLTensorView>> views;
  std::vector<TilecArg> args;
  size_t tensor = 0;
  for (size_t i = 0; i < func->params.size(); ++i) {
    if (func->params[i].is_buffer()) {
      ir::HostTensor& t = actual[tensor++];
      views.push_back(std::make_unique<runtime::DLTensorView>(t.data(), t.dtype(), t.shape()));
      args.push_back(runtime::tensor_arg(views.back()->get()));
    } else if (auto* i64 = std::get_if<int64_t>(&expected.args[i])) {
      args.push_back(runtime::int_arg(*i64));
    } else {
      args.push_back(runtime::float_arg(std::get<double>(expected.args[i])));
    }
  }
  built.module->function(function)(args);
  ir::interpret(func, expected.args);

  CpuRunResult result;
  result.host_source = host.source;
  result.device_source = device.source;
  for (size_t t = 0; t < actual.size(); ++t) {
    if (!expected.written[t]) continue;
    ir::CompareResult cmp = ir::compare_tensors(actual[t].view(), expected.tensors[t].view());
    result.ok = result.ok && cmp.ok;
    result.report += "tensor #" + std::to_string(t) + ": max_abs_err " +
                     std::to_string(cmp.max_abs_err) + (cmp.ok ? "" : " " + cmp.first_mismatch) +
                     "\n";
  }
  return result;
}

}  // namespace tilec::cpu::testing
