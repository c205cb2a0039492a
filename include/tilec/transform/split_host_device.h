// split_host_device: splits each kernel PrimFunc (body: T.Kernel, possibly under
// lets) into a device PrimFunc "<name>_kernel" (attr tilec.function_kind = "device";
// params: the source params, then the symbolic shape vars, then the binder's extra
// params) and a host PrimFunc with the source name, params and attrs plus
// tilec.function_kind = "host" and tilec.device_type (DLPack device type the host
// entry checks), whose body is a LaunchNode. tilec.launch = "device" (set with
// device_launch) makes the host launch a grid of blocks of threads through the
// runtime's device API (abi.h); without it the blocks run as tasks on the thread pool.
// LaunchNode.args are the device function's leading params (all but the binder's extra ones).
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

#include <functional>
#include <string>

namespace tilec::transform {

inline constexpr const char* kFunctionKindAttr = "tilec.function_kind";  // "host" / "device"
inline constexpr const char* kDeviceTypeAttr = "tilec.device_type";      // int64 DLDeviceType
inline constexpr const char* kLaunchAttr = "tilec.launch";               // "device" or absent
// Device launches: int64 1 when the host entry also takes host tensors (copied in and
// back), 0 when it takes tensors in the device's memory only; from the pass config key
// kHostTensorsConfigKey (default true).
inline constexpr const char* kHostTensorsAttr = "tilec.host_tensors";
inline constexpr const char* kHostTensorsConfigKey = "device.host_tensors";

// How a target runs the blocks of a T.Kernel inside its device function.
struct DeviceKernelBody {
  std::vector<ir::Param> extra_params;  // e.g. the CPU's block range
  ir::Stmt body;
};
using BlockBinder = std::function<DeviceKernelBody(const ir::KernelNode& kernel)>;

struct SplitHostDeviceOptions {
  int64_t device_type = 1;  // kDLCPU: the tensors the host entry accepts
  BlockBinder bind_blocks;
  bool device_launch = false;  // sets tilec.launch = "device"
};

// Declares kHostTensorsConfigKey; a backend whose pipeline splits with device_launch
// calls it when it registers (idempotent).
void register_device_launch_config_keys();

// Whether a host function launches on a device (tilec.launch = "device"), and whether
// such a function takes host tensors (tilec.host_tensors, absent: yes).
bool launches_on_device(const ir::PrimFunc& host);
bool accepts_host_tensors(const ir::PrimFunc& host);

// `context` supplies kHostTensorsConfigKey for device launches.
ir::IRModule split_host_device(const ir::IRModule& mod, const SplitHostDeviceOptions& options,
                               const PassContext& context = PassContext::current());
Pass split_host_device_pass(SplitHostDeviceOptions options);  // "tilec.split_host_device"

}  // namespace tilec::transform
