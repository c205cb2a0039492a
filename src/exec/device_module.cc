#include "tilec/exec/device_module.h"

#include "host_entry_function.h"
#include "tilec/runtime/runtime_env.h"

namespace tilec::exec {

DeviceModule::DeviceModule(std::shared_ptr<runtime::KernelLibrary> library,
                           const TilecDeviceApi* api, int32_t memory_type, int32_t memory_id)
    : library_(std::move(library)) {
  env_ = *runtime::default_runtime_env();
  env_.device_api = api;
  env_.device = static_cast<DeviceModule*>(this);
  env_.device_memory_type = memory_type;
  env_.device_memory_id = memory_id;
}

bool DeviceModule::has_function(std::string_view global_symbol) const {
  return library_->has_entry(global_symbol);
}

HostFunction DeviceModule::function(std::string_view global_symbol) const {
  return detail::host_entry_function(*library_, global_symbol, shared_from_this(), &env_);
}

}  // namespace tilec::exec
