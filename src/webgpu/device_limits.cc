#include "tilec/webgpu/device_limits.h"

#include "tilec/webgpu/wgpu_backend.h"

namespace tilec::webgpu {

std::optional<target::Target> fill_webgpu_device_limits(const target::Target& target) {
  constexpr const char* kShared = "max_shared_memory_per_block";
  constexpr const char* kThreads = "max_threads_per_block";
  constexpr const char* kSubgroups = "subgroup_reduce";
  if (target.kind() != "webgpu") return std::nullopt;
  bool shared = target.get_int(kShared, 0) == 0, threads = target.get_int(kThreads, 0) == 0,
       subgroups = target.get_int(kSubgroups, 0) == -1;
  if (!shared && !threads && !subgroups) return std::nullopt;
  std::optional<WgpuDeviceFacts> facts = wgpu_device_facts(target.get_string("device"));
  std::map<std::string, target::TargetAttr> attrs = target.attrs();
  if (shared)
    attrs[kShared] =
        target::TargetAttr{facts ? facts->max_workgroup_storage : kWebGpuDefaultSharedBytes};
  if (threads)
    attrs[kThreads] = target::TargetAttr{facts ? facts->max_invocations : kWebGpuDefaultThreads};
  if (subgroups) attrs[kSubgroups] = target::TargetAttr{int64_t(facts && facts->subgroups ? 1 : 0)};
  target::Target filled = target::Target::make(target.kind(), std::move(attrs), target.keys());
  if (target.host()) filled = filled.with_host(*target.host());
  return filled;
}

}  // namespace tilec::webgpu
