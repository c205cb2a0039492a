#include "tilec/rocm/hip_target.h"

#include <regex>

namespace tilec::rocm {

std::string hip_arch(const target::Target& target) {
  std::string arch = target.get_string("mcpu", "");
  if (arch.empty()) return kDefaultHipArch;
  return arch.substr(0, arch.find(':'));
}

namespace {

// The major generation of "gfxNNN..": the digits before the last two characters
// (gfx90a -> 9, gfx1030 -> 10, gfx1100 -> 11); 0 when the name has another form.
int generation(const std::string& arch) {
  static const std::regex form(R"(gfx(\d+)[0-9a-f]{2})");
  std::smatch m;
  if (!std::regex_match(arch, m, form)) return 0;
  return std::stoi(m[1]);
}

}  // namespace

int64_t arch_wavefront_size(const std::string& arch) {
  return generation(arch) >= 10 ? 32 : 64;
}

int64_t hip_wavefront_size(const target::Target& target) {
  return target.get_int("thread_warp_size", arch_wavefront_size(hip_arch(target)));
}

bool arch_has_mfma(const std::string& arch) {
  return arch == "gfx908" || arch == "gfx90a" || arch_has_mfma_bf16_1k(arch);
}

bool arch_has_mfma_bf16_1k(const std::string& arch) {
  return arch == "gfx90a" || arch == "gfx940" || arch == "gfx941" || arch == "gfx942";
}

std::optional<target::Target> normalize_hip_wavefront(const target::Target& target) {
  if (target.kind() != "hip") return std::nullopt;
  int64_t wavefront = arch_wavefront_size(hip_arch(target));
  if (target.get_int("thread_warp_size", 0) == wavefront) return std::nullopt;
  std::map<std::string, target::TargetAttr> attrs = target.attrs();
  attrs["thread_warp_size"] = target::TargetAttr{wavefront};
  target::Target filled = target::Target::make(target.kind(), std::move(attrs), target.keys());
  if (target.host()) filled = filled.with_host(*target.host());
  return filled;
}

}  // namespace tilec::rocm
