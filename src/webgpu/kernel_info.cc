#include "tilec/webgpu/kernel_info.h"

#include <fmt/format.h>

#include <regex>
#include <sstream>

namespace tilec::webgpu {

namespace {
constexpr const char* kMarker = "// tilec-wgsl-kernel ";
}

std::string format_kernel_info(const KernelInfo& info) {
  return fmt::format("{}{} workgroup={},{},{} workgroup_bytes={} buffers={} scalars={} status={}",
                     kMarker, info.entry, info.workgroup[0], info.workgroup[1], info.workgroup[2],
                     info.workgroup_bytes, info.buffers.empty() ? "-" : info.buffers, info.scalars,
                     info.status ? 1 : 0);
}

std::map<std::string, KernelInfo> parse_kernel_infos(const std::string& wgsl) {
  static const std::regex line_form(
      R"(// tilec-wgsl-kernel (\w+) workgroup=(\d+),(\d+),(\d+) workgroup_bytes=(\d+) )"
      R"(buffers=([rw-]+) scalars=(\d+) status=([01]))");
  std::map<std::string, KernelInfo> out;
  std::istringstream in(wgsl);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.rfind(kMarker, 0) != 0 || !std::regex_match(line, m, line_form)) continue;
    KernelInfo info;
    info.entry = m[1];
    for (int d = 0; d < 3; ++d) info.workgroup[size_t(d)] = std::stoll(m[2 + d]);
    info.workgroup_bytes = std::stoll(m[5]);
    info.buffers = m[6] == "-" ? "" : std::string(m[6]);
    info.scalars = std::stoi(m[7]);
    info.status = m[8] == "1";
    out[info.entry] = info;
  }
  return out;
}

}  // namespace tilec::webgpu
