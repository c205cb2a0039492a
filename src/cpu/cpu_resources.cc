#include "tilec/cpu/cpu_resources.h"

#include "tilec/target/llvm_support.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <string_view>

namespace tilec::cpu {

namespace {

constexpr VectorUnit kAvx512{64, 32}, kAvx{32, 16}, kSse{16, 16}, kNeon{16, 32};

// Intel and AMD CPU names (as gcc's -march and LLVM's -mcpu spell them) with AVX-512.
constexpr std::array<std::string_view, 16> kAvx512Cpus = {
    "skylake-avx512", "cascadelake",    "cooperlake",    "cannonlake",
    "icelake-client", "icelake-server", "tigerlake",     "rocketlake",
    "sapphirerapids", "emeraldrapids",  "graniterapids", "graniterapids-d",
    "znver4",         "znver5",         "knl",           "x86-64-v4"};
// Names that have AVX (and 16 vector registers) but not AVX-512.
constexpr std::array<std::string_view, 16> kAvxCpus = {
    "sandybridge", "ivybridge",  "haswell",   "broadwell", "skylake", "alderlake",
    "raptorlake",  "meteorlake", "arrowlake", "lunarlake", "znver1",  "znver2",
    "znver3",      "bdver4",     "x86-64-v3", "gracemont"};

template <size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view cpu) {
  return std::find(names.begin(), names.end(), cpu) != names.end();
}

bool is_this_host(const std::string& mcpu) {
  if (mcpu.empty() || mcpu == "native") return true;
  return target::llvm_enabled() && mcpu == target::llvm_host_cpu();
}

int64_t read_size(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  int64_t scale = 1;
  char unit = text.back();
  if (unit == 'K') scale = 1024;
  if (unit == 'M') scale = 1024 * 1024;
  if (unit == 'G') scale = int64_t(1024) * 1024 * 1024;
  try {
    return std::stoll(scale == 1 ? text : text.substr(0, text.size() - 1)) * scale;
  } catch (const std::exception&) {
    return 0;
  }
}

std::string read_word(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

}  // namespace

VectorUnit host_vector_unit() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return kAvx512;
  if (__builtin_cpu_supports("avx")) return kAvx;
  return kSse;
#elif defined(__aarch64__)
  return kNeon;
#else
  return VectorUnit{};
#endif
}

VectorUnit vector_unit_for(const target::Target& target) {
  // Explicit features win, the last one named for a width deciding.
  auto attr = target.attrs().find("mattr");
  std::optional<VectorUnit> from_features;
  if (attr != target.attrs().end()) {
    if (auto* features = std::get_if<std::vector<std::string>>(&attr->second)) {
      for (const auto& f : *features) {
        if (f == "+avx512f") from_features = kAvx512;
        if ((f == "+avx2" || f == "+avx") && (!from_features || from_features->bytes < 32))
          from_features = kAvx;
        if (f == "-avx512f" && from_features && from_features->bytes > 32) from_features = kAvx;
        if (f == "-avx512f" && !from_features) {
          VectorUnit host = host_vector_unit();
          from_features = host.bytes > 32 ? kAvx : host;
        }
      }
    }
  }
  if (from_features) return *from_features;
  std::string mcpu = target.get_string("mcpu");
  if (is_this_host(mcpu)) return host_vector_unit();
  if (listed(kAvx512Cpus, mcpu)) return kAvx512;
  if (listed(kAvxCpus, mcpu)) return kAvx;
  if (mcpu.rfind("neoverse", 0) == 0 || mcpu.rfind("cortex-a", 0) == 0 ||
      mcpu.rfind("apple", 0) == 0)
    return kNeon;
  return kSse;  // an unknown CPU: the narrowest x86-64 vector, always correct
}

CacheSizes cache_sizes_from_sysfs(const std::string& cache_dir) {
  CacheSizes sizes;
  for (int index = 0; index < 8; ++index) {
    std::string dir = cache_dir + "/index" + std::to_string(index);
    std::string level = read_word(dir + "/level"), type = read_word(dir + "/type");
    if (level.empty()) continue;
    int64_t size = read_size(dir + "/size");
    if (size <= 0) continue;
    if (level == "1" && type == "Data") sizes.l1d = size;
    if (level == "2" && type != "Instruction") sizes.l2 = size;
    if (level == "3" && type != "Instruction") sizes.l3 = size;
  }
  return sizes;
}

const CacheSizes& host_cache_sizes() {
  static const CacheSizes sizes = cache_sizes_from_sysfs("/sys/devices/system/cpu/cpu0/cache");
  return sizes;
}

}  // namespace tilec::cpu
