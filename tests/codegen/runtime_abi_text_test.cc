// The ABI text the C host codegen embeds is runtime/abi.h itself, generated at build
// time: one source of truth, so the two cannot drift apart.
#include "tilec/codegen/runtime_abi_text.h"
#include "build_paths.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace tilec::codegen {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(RuntimeAbiText, IsTheHeaderByteForByte) {
  std::string header = read_file(std::string(TILEC_SOURCE_DIR) + "/include/tilec/runtime/abi.h");
  ASSERT_FALSE(header.empty());
  EXPECT_EQ(std::string(runtime_abi_header_text()), header);
}

TEST(RuntimeAbiText, EmbeddedFormDropsOnlyTheDLPackInclude) {
  std::string header(runtime_abi_header_text());
  std::string embedded = runtime_abi_c_declarations();
  EXPECT_EQ(embedded.find("#include <dlpack/dlpack.h>"), std::string::npos);
  EXPECT_EQ(embedded.size(),
            1 + header.size() - std::string("#include <dlpack/dlpack.h>\n").size());
  for (const char* part : {"#define TILEC_ABI_VERSION", "typedef struct TilecArg",
                           "typedef struct TilecRuntimeEnv", "typedef int32_t (*TilecHostEntry)"}) {
    EXPECT_NE(embedded.find(part), std::string::npos) << part;
  }
}

}  // namespace
}  // namespace tilec::codegen
