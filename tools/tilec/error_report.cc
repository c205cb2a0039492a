#include "error_report.h"

#include "tilec/ir/source_error.h"
#include "tilec/transform/pass_pipeline.h"

#include <fstream>
#include <regex>
#include <sstream>

namespace tilec::cli {
namespace {

std::string& kernel_file() {
  static std::string file;
  return file;
}

constexpr const char* kPrefix = "tilec: error: ";

bool is_kernel_place(const std::string& place) {
  std::string file = place.substr(0, place.find(':'));
  return file == kernel_file() || file == "<input>" ||
         (file.size() > 3 && file.compare(file.size() - 3, 3, ".py") == 0);
}

// One line of a library message in the CLI format, or the line unchanged when it
// is a continuation (source line, caret, hint, a C compiler's own output).
std::string rewrite_line(const std::string& line, bool first) {
  static const std::regex source_error(R"(^(\S+?:\d+:\d+): error: (.*)$)");
  static const std::regex located_error(R"(^(\S+?): error: (.*)$)");
  static const std::regex interp_place(R"(^line (\d+):(\d+): (.*)$)");
  // A compiled kernel's run-time report (the bounds-checked build) carries the same place.
  static const std::regex kernel_place(R"(^kernel '[^']*': line (\d+):(\d+): (.*)$)");
  static const std::regex bare_error(R"(^error: (.*)$)");
  if (line.rfind(kPrefix, 0) == 0) return line;
  std::smatch m;
  if (std::regex_match(line, m, source_error) && (first || is_kernel_place(m[1].str())))
    return kPrefix + m[1].str() + ": " + m[2].str();
  if (!first) return line;
  if (std::regex_match(line, m, located_error) && is_kernel_place(m[1].str()))
    return kPrefix + m[1].str() + ": " + m[2].str();
  if (std::regex_match(line, m, interp_place) || std::regex_match(line, m, kernel_place)) {
    std::string file = kernel_file().empty() ? "<kernel>" : kernel_file();
    return kPrefix + file + ":" + m[1].str() + ":" + m[2].str() + ": " + m[3].str();
  }
  if (std::regex_match(line, m, bare_error)) return kPrefix + m[1].str();
  return kPrefix + line;
}

}  // namespace

void set_current_kernel_file(const std::string& file) {
  kernel_file() = file;
}
const std::string& current_kernel_file() {
  return kernel_file();
}

std::string format_cli_error(const std::string& what) {
  std::istringstream in(what);
  std::string line, out;
  bool first = true;
  while (std::getline(in, line)) {
    if (!first) out += "\n";
    out += rewrite_line(line, first);
    first = false;
  }
  if (first) out = std::string(kPrefix) + "unknown error";
  return out;
}

std::string format_cli_error(const std::exception& error) {
  const ir::LocatedError* located = dynamic_cast<const ir::LocatedError*>(&error);
  if (auto* pass = dynamic_cast<const transform::LocatedPassError*>(&error))
    located = &pass->located;
  if (located && !kernel_file().empty()) {
    std::ifstream in(kernel_file(), std::ios::binary);
    if (in) {
      std::stringstream source;
      source << in.rdbuf();
      return format_cli_error(ir::locate(*located, kernel_file(), source.str()).what());
    }
  }
  return format_cli_error(std::string(error.what()));
}

}  // namespace tilec::cli
