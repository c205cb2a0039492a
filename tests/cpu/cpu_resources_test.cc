// cpu_resources.h: cache sizes read from a sysfs-shaped directory (missing or unreadable
// levels keep their defaults), and the host's own values are sane.
#include "tilec/cpu/cpu_resources.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace tilec::cpu {
namespace {

void write_index(const std::filesystem::path& root, int index, const char* level, const char* type,
                 const char* size) {
  std::filesystem::path dir = root / ("index" + std::to_string(index));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "level") << level << "\n";
  std::ofstream(dir / "type") << type << "\n";
  std::ofstream(dir / "size") << size << "\n";
}

TEST(CpuResources, CacheSizesComeFromSysfsWithDefaultsForTheRest) {
  std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("tilec_cache_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  write_index(root, 0, "1", "Data", "48K");
  write_index(root, 1, "1", "Instruction", "64K");
  write_index(root, 2, "2", "Unified", "2048K");
  CacheSizes sizes = cache_sizes_from_sysfs(root.string());
  EXPECT_EQ(sizes.l1d, 48 * 1024);
  EXPECT_EQ(sizes.l2, 2048 * 1024);
  EXPECT_EQ(sizes.l3, CacheSizes{}.l3);  // no level 3 listed: the default
  write_index(root, 3, "3", "Unified", "garbage");
  EXPECT_EQ(cache_sizes_from_sysfs(root.string()).l3, CacheSizes{}.l3);
  std::filesystem::remove_all(root);
  CacheSizes none = cache_sizes_from_sysfs("/nonexistent/tilec");
  EXPECT_EQ(none.l1d, CacheSizes{}.l1d);
  const CacheSizes& host = host_cache_sizes();
  EXPECT_GE(host.l1d, 4096);
  EXPECT_GE(host.l2, host.l1d);
}

TEST(CpuResources, HostVectorUnitIsAtLeastSse) {
  VectorUnit unit = host_vector_unit();
  EXPECT_GE(unit.bytes, 16);
  EXPECT_GE(unit.registers, 16);
  EXPECT_EQ(vector_unit_for(target::Target::parse("c")).bytes, unit.bytes);
}

}  // namespace
}  // namespace tilec::cpu
