#include "tilec/opencl/device_limits.h"

#include "tilec/opencl/opencl_execution_backend.h"

namespace tilec::opencl {

std::optional<target::Target> fill_opencl_device_limits(const target::Target& target) {
  constexpr const char* kShared = "max_shared_memory_per_block";
  if (target.kind() != "opencl" || target.get_int(kShared, 0) != 0) return std::nullopt;
  int64_t bytes = opencl::opencl_local_memory_bytes(target.get_string("device"))
                      .value_or(kOpenCLDefaultSharedBytes);
  std::map<std::string, target::TargetAttr> attrs = target.attrs();
  attrs[kShared] = target::TargetAttr{bytes};
  target::Target filled = target::Target::make(target.kind(), std::move(attrs), target.keys());
  if (target.host()) filled = filled.with_host(*target.host());
  return filled;
}

}  // namespace tilec::opencl
