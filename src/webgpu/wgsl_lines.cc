#include "tilec/webgpu/wgpu_backend.h"

#include <fmt/format.h>

#include <regex>
#include <set>
#include <sstream>

namespace tilec::webgpu {

std::vector<std::string> wgsl_lines_cited(const std::string& message, const std::string& source) {
  std::vector<std::string> lines;
  std::istringstream in(source);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // naga: "┌─ wgsl:12:5"; Tint: ":12:5 error: ...".
  static const std::regex citation(R"((?:wgsl)?:(\d+):(\d+))");
  std::vector<std::string> out;
  std::set<int> seen;
  for (auto it = std::sregex_iterator(message.begin(), message.end(), citation);
       it != std::sregex_iterator(); ++it) {
    int n = std::stoi((*it)[1]);
    if (n < 1 || n > int(lines.size()) || !seen.insert(n).second) continue;
    out.push_back(fmt::format("line {}: {}", n, lines[size_t(n - 1)]));
  }
  return out;
}

}  // namespace tilec::webgpu
