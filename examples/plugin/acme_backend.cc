// The `acme` sample backend: an out-of-tree plugin built against the installed tilec
// package alone (see CMakeLists.txt next to it). It owns its whole slice:
//   - target kind `acme` with an attribute of its own, -vector_width=<int> (default 8);
//   - a pipeline of tilec's shared passes, with the cpu backend's block binder;
//   - a device codegen subclassing the cpu C device printer: it names the backend on
//     every device function and asks for `vector_width` SIMD lanes on vectorized loops;
//   - the standard `c` host codegen, and a host codegen hook that records the vector
//     width in every host entry (where a GPU backend would rewrite the launch);
//   - the shared `native` execution backend, which compiles host and device C together.
// Loaded by tilec::initialize() from a directory on TILEC_PLUGIN_PATH as
// libtilec_plugin_acme.so (import path "tilec_plugin_acme").
#include "tilec/backend/backend_error.h"
#include "tilec/backend/module.h"
#include "tilec/backend/module_loader.h"
#include "tilec/codegen/device_source.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cpu/codegen_c_device.h"
#include "tilec/cpu/pipeline.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/target/target_kind.h"
#include "tilec/transform/flatten_buffers.h"
#include "tilec/transform/lower_tile_ops.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/split_host_device.h"
#include "tilec/transform/vectorize_loops.h"

#include <memory>
#include <string>
#include <vector>

namespace acme {

using namespace tilec;

constexpr const char* kKind = "acme";
constexpr int64_t kDefaultVectorWidth = 8;
constexpr int64_t kDLCPU = 1;  // acme code runs on the host CPU's memory

// The target's -vector_width, checked here because the schema only knows it is an int.
int64_t vector_width(const target::Target& target) {
  int64_t width = target.get_int("vector_width", kDefaultVectorWidth);
  if (width < 1 || width > 64 || (width & (width - 1)) != 0) {
    throw backend::BackendError("acme: -vector_width must be a power of two from 1 to 64, got " +
                                std::to_string(width) + " (target '" + target.str() +
                                "'); try -vector_width=8");
  }
  return width;
}

target::TargetKind acme_kind() {
  return {kKind,
          {{"vector_width", target::AttrType::kInt, target::TargetAttr(kDefaultVectorWidth),
            "SIMD lanes requested for vectorized loops (a power of two, 1..64)"}},
          {kKind, "cpu"},
          "acme: the sample out-of-tree backend (tilec examples/plugin), C on the host CPU"};
}

// The shared lowering: tile ops to loops, simplify, flatten, vectorize, then the
// host/device split with blocks run as a range per task (the cpu block binder,
// since acme runs its blocks on the native thread pool as cpu does).
transform::PassPipeline acme_pipeline() {
  transform::SplitHostDeviceOptions split{kDLCPU, cpu::bind_blocks_to_task_range};
  return transform::PassPipeline(
      "acme", {transform::lower_tile_ops_pass(), transform::simplify_pass(),
               transform::flatten_buffers_pass(), transform::simplify_pass(),
               transform::vectorize_loops_pass(), transform::split_host_device_pass(split)});
}

// The cpu device printer with two acme hooks overridden; everything else (loops,
// stores, task functions of the c launch ABI) is inherited.
class CodeGenAcme : public cpu::CodeGenCDevice {
 public:
  explicit CodeGenAcme(int64_t vector_width) : vector_width_(vector_width) {}

 protected:
  std::string function_qualifiers(const ir::PrimFunc& func) override {
    return "/* acme: vector_width=" + std::to_string(vector_width_) + " */ " +
           cpu::CodeGenCDevice::function_qualifiers(func);
  }

  // Vectorized loops have independent iterations (the lowering proved it), which
  // `omp simd` asserts as the inherited ivdep does, and simdlen sets the lanes; the
  // native backend compiles with -fopenmp-simd, which honours both.
  std::vector<std::string> loop_pragmas(ir::ForKind kind) override {
    if (kind != ir::ForKind::kVectorized) return cpu::CodeGenCDevice::loop_pragmas(kind);
    return {"#pragma omp simd simdlen(" + std::to_string(vector_width_) + ")"};
  }

 private:
  int64_t vector_width_;
};

// Runs on the host module just before the `c` host codegen: binds the vector width
// as a constant at the top of every host entry, so the generated host C shows which
// acme configuration it launches. (A GPU backend rewrites the LaunchNode here.)
ir::IRModule record_vector_width(const ir::IRModule& mod, const target::Target&,
                                 const target::Target* target) {
  int64_t width = target ? vector_width(*target) : kDefaultVectorWidth;
  ir::IRModule out = mod;
  for (const auto& func : mod.functions()) {
    ir::Var var = ir::make_var("acme_vector_width", ir::DataType::Int32());
    ir::Stmt body = ir::let(var, ir::make_int(width), func->body);
    out = out.with_function(ir::with_body(func, body));
  }
  return out;
}

std::shared_ptr<const backend::BackendModule> make_acme_module() {
  backend::ExecutionBackendSpec native{
      .name = "native",
      .is_available = [] { return exec::is_execution_backend_available("native"); },
      .supports_target = std::nullopt,  // every acme target
      .enable_host_codegen = true,
      // Host and device C are compiled together by the execution backend.
      .enable_device_compile = false,
  };
  return std::make_shared<const backend::BackendModule>(backend::BackendModule{
      .name = "acme",
      .target_kinds = {kKind},
      .pipelines = {{kKind, acme_pipeline()}},
      .device_codegens = {{kKind, codegen::make_device_codegen(
                                      "acme_c",
                                      [](const target::Target& target) {
                                        return std::make_unique<CodeGenAcme>(vector_width(target));
                                      })}},
      .execution_backends = {native},
      .supports_target = std::nullopt,
      .host_codegens = {{"c", codegen::make_c_host_codegen()}},
      .host_codegen_hooks = {{kKind, {{"acme_record_vector_width", record_vector_width}}}},
      .callbacks = {},
  });
}

void init_acme(backend::PluginRegistrar&) {
  // The kind first: register_backend checks that the module's kinds exist. If
  // anything below throws, the loader undoes both.
  target::register_target_kind(acme_kind());
  backend::register_backend(make_acme_module());
}

}  // namespace acme

TILEC_DEFINE_PLUGIN(acme::init_acme)
