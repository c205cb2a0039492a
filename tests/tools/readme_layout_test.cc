// README's layout list ("include/tilec/<layer>/ public headers  src/<layer>/
// implementation") names every folder of src/ and include/tilec/, and nothing that is not
// there, so the map a newcomer reads cannot drift from the tree.
#include "build_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::set<std::string> folders_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_directory()) names.insert(entry.path().filename().string());
  return names;
}

// The folder names the layout block lists, one per line as "  <name>/  <description>".
std::set<std::string> folders_in_readme_layout(const fs::path& readme) {
  std::ifstream in(readme);
  std::string line;
  bool inside = false;
  std::set<std::string> names;
  const std::regex entry(R"(^  ([a-z_]+)/\s)");
  while (std::getline(in, line)) {
    if (line.rfind("include/tilec/<layer>/", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("```", 0) == 0) break;
    std::smatch match;
    if (std::regex_search(line, match, entry)) names.insert(match[1]);
  }
  return names;
}

std::string joined(const std::set<std::string>& names) {
  std::ostringstream out;
  for (const auto& name : names) out << name << "/ ";
  return out.str();
}

TEST(ReadmeLayout, ListsEveryFolderOfSrcAndIncludeAndNoOther) {
  const fs::path root = tilec_build_source_dir();
  std::set<std::string> listed = folders_in_readme_layout(root / "README.md");
  ASSERT_FALSE(listed.empty()) << "README.md has no layout block after 'include/tilec/<layer>/'";
  std::set<std::string> present = folders_in(root / "src");
  for (const auto& name : folders_in(root / "include" / "tilec")) present.insert(name);
  for (const auto& name : present)
    EXPECT_TRUE(listed.count(name)) << name << "/ exists but README's layout list omits it";
  for (const auto& name : listed)
    EXPECT_TRUE(present.count(name))
        << "README's layout list names " << name << "/, which is in neither src/ nor "
        << "include/tilec/ (present: " << joined(present) << ")";
}

}  // namespace
