#include "tilec/engine/kernel.h"

#include "tilec/runtime/stream.h"

#include "kernel_state.h"
#include "tilec/engine/engine_error.h"
#include "tilec/exec/device_timer.h"
#include "tilec/runtime/dlpack_tensor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tilec {
namespace {

std::string param_list(const ir::PrimFunc& func) {
  std::vector<std::string> names;
  for (const auto& param : func->params) {
    names.push_back(
        param.is_buffer()
            ? fmt::format("{} ({}{})", param.name(), param.buffer->dtype.str(), " tensor")
            : fmt::format("{} ({})", param.name(), param.var.dtype().str()));
  }
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

Kernel::Kernel(std::shared_ptr<const KernelState> state) : state_(std::move(state)) {}

const ir::IRModule& Kernel::lowered() const {
  return state_->lowered;
}
const std::string& Kernel::host_source() const {
  return state_->host_source;
}
const std::string& Kernel::device_source() const {
  return state_->device_source;
}
const backend::BackendContext& Kernel::context() const {
  return state_->context;
}
const std::string& Kernel::execution_backend() const {
  return state_->execution_backend;
}
bool Kernel::cache_hit() const {
  return state_->cache_hit;
}
double Kernel::compile_ms() const {
  return state_->compile_ms;
}
const std::string& Kernel::cache_key() const {
  return state_->cache_key;
}
const std::filesystem::path& Kernel::library_path() const {
  return state_->library_path;
}
// The execution backend's optional hook (tilec/exec/device_timer.h).
static const exec::DeviceTimedModule* device_timed(const KernelState& state) {
  return dynamic_cast<const exec::DeviceTimedModule*>(state.module.get());
}
std::optional<double> Kernel::take_device_time_ms() const {
  const exec::DeviceTimedModule* timed = device_timed(*state_);
  return timed ? timed->take_device_time_ms() : std::nullopt;
}
std::string Kernel::device_clock() const {
  const exec::DeviceTimedModule* timed = device_timed(*state_);
  return timed ? timed->device_clock() : std::string();
}

std::vector<std::string> Kernel::function_names() const {
  std::vector<std::string> names;
  for (const auto& function : state_->functions) names.push_back(function.name);
  return names;
}

const std::string& Kernel::resolve_function(std::string_view function) const {
  if (function.empty()) {
    if (state_->functions.size() == 1) return state_->functions.front().name;
    throw EngineError(fmt::format("this kernel has {} functions ({}); name the one to call",
                                  state_->functions.size(), fmt::join(function_names(), ", ")));
  }
  for (const auto& candidate : state_->functions) {
    if (candidate.name == function) return candidate.name;
  }
  throw EngineError(fmt::format("this kernel has no function '{}'; it has: {}", function,
                                fmt::join(function_names(), ", ")));
}

const ir::PrimFunc& Kernel::host_function(std::string_view function) const {
  const std::string& name = resolve_function(function);
  for (const auto& candidate : state_->functions) {
    if (candidate.name == name) return candidate.host;
  }
  throw EngineError(fmt::format("this kernel has no function '{}'", function));
}

std::vector<size_t> Kernel::output_indices(std::string_view function) const {
  return ir::output_indices(host_function(function));
}

void Kernel::call(std::string_view function, std::span<const TilecArg> args) const {
  const std::string& name = resolve_function(function);
  for (size_t i = 0; i < args.size(); ++i) {
    // The generated entry can check a tensor's fields but not a missing tensor.
    if (args[i].kind == kTilecArgTensor && args[i].v.tensor == nullptr) {
      throw EngineError(fmt::format(
          "argument {} of '{}' is a null DLTensor pointer; pass a tensor (parameters: {})", i, name,
          param_list(host_function(name))));
    }
  }
  for (const auto& candidate : state_->functions) {
    if (candidate.name == name) return candidate.entry(args);
  }
}

void Kernel::call(std::string_view function, std::span<const TilecArg> args,
                  const CallOptions& options) const {
  runtime::ScopedStream stream(options.stream);
  call(function, args);
}

void Kernel::call(std::span<const TilecArg> args) const {
  call("", args);
}

void Kernel::call(std::string_view function, const std::vector<DLTensor*>& tensors) const {
  std::vector<TilecArg> args;
  args.reserve(tensors.size());
  for (DLTensor* tensor : tensors) args.push_back(runtime::tensor_arg(tensor));
  call(function, std::span<const TilecArg>(args));
}

void Kernel::call(const std::vector<DLTensor*>& tensors) const {
  call("", tensors);
}

void Kernel::call(std::string_view function, const std::vector<KernelArg>& args) const {
  std::vector<runtime::DLTensorView> views;
  views.reserve(args.size());  // no reallocation: TilecArgs point into the views
  std::vector<TilecArg> packed;
  for (const auto& arg : args) {
    if (const auto* tensor = std::get_if<ir::TensorView>(&arg)) {
      views.emplace_back(tensor->data, tensor->dtype, tensor->shape);
      packed.push_back(runtime::tensor_arg(views.back().get()));
    } else if (const auto* integer = std::get_if<int64_t>(&arg)) {
      packed.push_back(runtime::int_arg(*integer));
    } else {
      packed.push_back(runtime::float_arg(std::get<double>(arg)));
    }
  }
  call(function, std::span<const TilecArg>(packed));
}

void Kernel::call(const std::vector<KernelArg>& args) const {
  call("", args);
}

void Kernel::call_raw(std::string_view function, const std::vector<RawArg>& args) const {
  const ir::PrimFunc& func = host_function(function);
  if (args.size() != func->params.size()) {
    throw EngineError(fmt::format("'{}' takes {} arguments, got {}; parameters: {}", func->name,
                                  func->params.size(), args.size(), param_list(func)));
  }
  std::vector<KernelArg> typed;
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::Param& param = func->params[i];
    if (const auto* tensor = std::get_if<RawTensor>(&args[i])) {
      if (!param.is_buffer()) {
        throw EngineError(fmt::format("argument {} of '{}' ('{}') is a {} scalar, got a tensor", i,
                                      func->name, param.name(), param.var.dtype().str()));
      }
      typed.push_back(ir::TensorView{tensor->data, param.buffer->dtype, tensor->shape});
    } else if (const auto* integer = std::get_if<int64_t>(&args[i])) {
      typed.push_back(*integer);
    } else {
      typed.push_back(std::get<double>(args[i]));
    }
  }
  call(function, typed);
}

void Kernel::call_raw(const std::vector<RawArg>& args) const {
  call_raw("", args);
}

}  // namespace tilec
