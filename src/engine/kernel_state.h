// KernelState: what every copy of a Kernel handle shares; compile() builds it and
// Kernel only reads it.
#pragma once

#include "tilec/backend/module.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/ir/function.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace tilec {

struct KernelFunction {
  std::string name;
  ir::PrimFunc host;  // the lowered host function
  exec::HostFunction entry;
};

struct KernelState {
  KernelState(backend::BackendContext context, ir::IRModule lowered)
      : context(std::move(context)), lowered(std::move(lowered)) {}

  backend::BackendContext context;
  ir::IRModule lowered;
  std::string host_source;
  std::string device_source;
  std::string execution_backend;
  std::shared_ptr<const exec::LoadedModule> module;
  std::vector<KernelFunction> functions;
  bool cache_hit = false;
  double compile_ms = 0;
  std::string cache_key;
  std::filesystem::path library_path;
  // A private build directory (cache disabled, or publishing lost to an invalid
  // entry), removed when the last Kernel copy goes away.
  std::shared_ptr<const std::filesystem::path> owned_dir;
};

}  // namespace tilec
