#include "tilec/cuda/shared_memory_limit.h"

#include <map>
#include <string>

namespace tilec::cuda {

std::optional<int64_t> max_shared_bytes_per_block(std::string_view arch) {
  static const std::map<std::string, int64_t, std::less<>> kOptInMaximum = {
      {"sm_50", 48 * 1024},   {"sm_52", 48 * 1024},    {"sm_53", 48 * 1024},
      {"sm_60", 48 * 1024},   {"sm_61", 48 * 1024},    {"sm_62", 48 * 1024},
      {"sm_70", 96 * 1024},   {"sm_72", 96 * 1024},    {"sm_75", 64 * 1024},
      {"sm_80", 163 * 1024},  {"sm_86", 99 * 1024},    {"sm_87", 163 * 1024},
      {"sm_89", 99 * 1024},   {"sm_90", 227 * 1024},   {"sm_90a", 227 * 1024},
      {"sm_100", 227 * 1024}, {"sm_100a", 227 * 1024}, {"sm_120", 99 * 1024},
  };
  auto it = kOptInMaximum.find(arch);
  if (it == kOptInMaximum.end()) return std::nullopt;
  return it->second;
}

}  // namespace tilec::cuda
