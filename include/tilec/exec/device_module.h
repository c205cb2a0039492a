// DeviceModule: a loaded kernel library whose host entries launch on a device through the
// TilecDeviceApi (runtime/abi.h) of the execution backend that built it (opencl,
// nvrtc/nvcc, the emulator). Its runtime env names that API, this module as the device,
// and where the device's memory lives; a host function keeps the module -- and the device
// state the env points into -- alive. Subclasses implement the API and are made with
// std::make_shared (the functions share ownership of them). Used by the target backends whose
// execution backends launch on a device.
#pragma once

#include "tilec/exec/execution_backend.h"
#include "tilec/runtime/kernel_library.h"

#include <memory>
#include <string_view>

namespace tilec::exec {

class DeviceModule : public LoadedModule, public std::enable_shared_from_this<DeviceModule> {
 public:
  bool has_function(std::string_view global_symbol) const override;
  HostFunction function(std::string_view global_symbol) const override;

 protected:
  // memory_type/id: TilecRuntimeEnv.device_memory_type/_id (0: tensors are copied).
  DeviceModule(std::shared_ptr<runtime::KernelLibrary> library, const TilecDeviceApi* api,
               int32_t memory_type = 0, int32_t memory_id = 0);

  // The module a TilecDeviceApi entry was called for (its `device` argument).
  template <class Derived>
  static Derived& of(void* device) {
    return static_cast<Derived&>(*static_cast<DeviceModule*>(device));
  }

  std::shared_ptr<runtime::KernelLibrary> library_;
  TilecRuntimeEnv env_{};
};

}  // namespace tilec::exec
