// The C dialect's helper text (src/codegen/text/c_helpers.h) and the host argument checks
// (include/tilec/runtime/host_arg_checks.inc) compile on their own with the system C
// compiler, so an error in them points at their own file and line; and TextSections
// splits a helper file as text_sections.h says.
#include "build_paths.h"
#include "tilec/codegen/c_preamble.h"
#include "tilec/codegen/text_sections.h"
#include "tilec/ir/expr.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace tilec::codegen {
namespace {

namespace fs = std::filesystem;

// Runs `command` through the shell; returns its exit status and fills `output`.
int run(const std::string& command, std::string* output) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((command + " 2>&1").c_str(), "r"), pclose);
  if (!pipe) return -1;
  std::array<char, 4096> buffer{};
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe.get()))
    output->append(buffer.data(), n);
  int status = pclose(pipe.release());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string c_compiler() {
  const char* cc = std::getenv("CC");
  return cc != nullptr && *cc != '\0' ? cc : "cc";
}

TEST(HelperText, CHelpersCompileAlone) {
  const fs::path file = fs::path(TILEC_SOURCE_DIR) / "src/codegen/text/c_helpers.h";
  std::string output;
  int status = run(
      c_compiler() + " -std=gnu11 -fsyntax-only -Wall -Wextra -Werror -x c '" + file.string() + "'",
      &output);
  EXPECT_EQ(status, 0) << output;
}

TEST(HelperText, HostArgChecksCompileAloneAsC) {
  // The .inc needs abi.h's types, <string.h> and INT32_MAX (its header says so).
  const fs::path dir = fs::temp_directory_path() / "tilec-helper-text-test";
  fs::create_directories(dir);
  const fs::path wrapper = dir / "host_arg_checks.c";
  std::ofstream(wrapper) << "#include <stdint.h>\n#include <string.h>\n"
                            "#include \"tilec/runtime/abi.h\"\n"
                            "#include \"tilec/runtime/host_arg_checks.inc\"\n";
  std::string output;
  int status =
      run(c_compiler() + " -std=gnu11 -fsyntax-only -Wall -Wextra -Werror -I '" +
              (fs::path(TILEC_SOURCE_DIR) / "include").string() + "' '" + wrapper.string() + "'",
          &output);
  EXPECT_EQ(status, 0) << output;
  fs::remove_all(dir);
}

TEST(HelperText, SectionsEndsAndDefines) {
  TextSections sections("demo.h",
                        "/* header */\n// @section a\nline 1\n// @define STATUS\n// @end\n"
                        "// why b exists\n// @section b\n\nline 2\n",
                        {{"STATUS", 7}});
  EXPECT_EQ(sections.get("a"), "line 1\n#define STATUS 7\n");
  EXPECT_EQ(sections.get("b"), "\nline 2\n");
  EXPECT_FALSE(sections.has("header"));
  try {
    sections.get("c");
    FAIL() << "expected an error for an unknown section";
  } catch (const ir::IRError& e) {
    EXPECT_NE(std::string(e.what()).find("demo.h has no section 'c'; known: a, b"),
              std::string::npos)
        << e.what();
  }
}

TEST(HelperText, SectionsRejectUnknownDefinesAndDuplicates) {
  EXPECT_THROW(TextSections("d.h", "// @section a\n// @define NOPE\n"), ir::IRError);
  EXPECT_THROW(TextSections("d.h", "// @section a\n// @section a\n"), ir::IRError);
}

TEST(HelperText, StatusCodesComeFromAbiHeader) {
  // The printed define carries runtime/abi.h's value, not a copy of the number.
  EXPECT_NE(c_preamble_helper("floordiv")
                .find("#define TILEC_STATUS_DIVISION_BY_ZERO " +
                      std::to_string(TILEC_STATUS_DIVISION_BY_ZERO) + "\n"),
            std::string::npos);
  EXPECT_NE(c_preamble_helper("alloc").find("#define TILEC_STATUS_OUT_OF_MEMORY " +
                                            std::to_string(TILEC_STATUS_OUT_OF_MEMORY) + "\n"),
            std::string::npos);
  EXPECT_NE(c_preamble_helper("bounds").find("#define TILEC_STATUS_OUT_OF_BOUNDS " +
                                             std::to_string(TILEC_STATUS_OUT_OF_BOUNDS) + "\n"),
            std::string::npos);
}

}  // namespace
}  // namespace tilec::codegen
