// What the `wgpu` execution backend needs to know of one WGSL kernel to bind and launch it,
// recorded by the WGSL printer as one comment line before the kernel:
//   // tilec-wgsl-kernel ENTRY workgroup=X,Y,Z workgroup_bytes=N buffers=rwr scalars=S status=0|1
// Bindings of @group(0): one storage buffer per tensor argument, in order (`r`: read-only,
// `w`: read_write), then the uniform struct of the S scalar arguments (4 bytes each, in
// order) when S > 0, then the status word (array<atomic<i32>>) when status=1.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

namespace tilec::webgpu {

struct KernelInfo {
  std::string entry;
  std::array<int64_t, 3> workgroup{1, 1, 1};
  int64_t workgroup_bytes = 0;
  std::string buffers;  // one 'r' or 'w' per tensor argument
  int scalars = 0;
  bool status = false;
};

std::string format_kernel_info(const KernelInfo& info);
// Every kernel a WGSL source records, by entry point name.
std::map<std::string, KernelInfo> parse_kernel_infos(const std::string& wgsl);

}  // namespace tilec::webgpu
