// `tilec check FILE [-D NAME=VALUE]...`: parses a kernel file and runs the semantic
// check. Every diagnostic is printed as file:line:col: error: ..., the source line, a
// caret and a hint (exit status 2); a clean file prints "ok: N function(s)".
#include "command.h"
#include "tilec/ir/check.h"
#include "tilec/ir/parser.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace tilec::cli {
namespace {

std::function<int()> setup_check(CLI::App& sub) {
  auto file = std::make_shared<std::string>();
  auto defines = std::make_shared<std::vector<std::string>>();
  sub.add_option("file", *file, "kernel file (.py, TileLang DSL)")->required();
  sub.add_option("-D,--define", *defines, "override a module constant: -D NAME=VALUE (repeatable)");
  return [file, defines]() -> int {
    try {
      std::map<std::string, std::string> values;
      for (const auto& d : *defines) {
        auto [name, value] = ir::parse_define(d);
        values[name] = value;
      }
      ir::IRModule module = ir::parse_kernel_file(*file, values);
      std::ifstream in(*file, std::ios::binary);
      std::stringstream source;
      source << in.rdbuf();
      auto diagnostics = ir::check_module(module);
      if (!diagnostics.empty()) {
        std::cerr << ir::format_diagnostics(diagnostics, *file, source.str()) << "\n";
        std::cerr << diagnostics.size() << " error(s) in " << *file << "\n";
        return kExitUsage;
      }
      std::cout << "ok: " << module.size() << " function(s)\n";
      return kExitOk;
    } catch (const ir::IRError& e) {
      std::cerr << e.what() << "\n";
      return kExitUsage;
    }
  };
}

TILEC_REGISTER_COMMAND(Command{"check", setup_check,
                               "parse a kernel file and run the semantic check"});

}  // namespace
}  // namespace tilec::cli
