#include "compile_c.h"
#include "build_paths.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace tilec::codegen {

std::string compile_and_run(const std::string& source, const std::string& main_body,
                            const std::string& tag) {
  auto dir = std::filesystem::path(TILEC_BINARY_DIR) / "test-codegen";
  std::filesystem::create_directories(dir);
  auto c_file = dir / (tag + ".c");
  auto exe = dir / tag;
  std::ofstream(c_file) << source << "\n#include <stdio.h>\nint main(void) {\n"
                        << main_body << "\n  return 0;\n}\n";
  const char* cc = std::getenv("CC");
  std::string cmd = std::string(cc && *cc ? cc : "cc") + " -O2 -o " + exe.string() + " " +
                    c_file.string() + " -lm 2>&1";
  int status = std::system(cmd.c_str());
  if (status != 0) {
    ADD_FAILURE() << "compiling " << c_file << " failed";
    return "";
  }
  std::string out;
  FILE* pipe = popen(exe.string().c_str(), "r");
  char buf[256];
  while (pipe && fgets(buf, sizeof buf, pipe)) out += buf;
  if (pipe) pclose(pipe);
  return out;
}

}  // namespace tilec::codegen
