// `tilec fmt FILE [-D NAME=VALUE]...`: parses a kernel file and prints its
// canonical form (constants inlined, symbolic dims declared at the top). Bad input
// prints the SourceError (file:line:col, the line and a caret) and exits 2.
#include "command.h"
#include "tilec/ir/parser.h"
#include "tilec/ir/printer.h"

#include <iostream>

namespace tilec::cli {
namespace {

std::function<int()> setup_fmt(CLI::App& sub) {
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
      std::cout << ir::print(ir::parse_kernel_file(*file, values));
      return kExitOk;
    } catch (const ir::IRError& e) {
      std::cerr << e.what() << "\n";
      return kExitUsage;
    }
  };
}

TILEC_REGISTER_COMMAND(Command{"fmt", setup_fmt, "print a kernel file in canonical form"});

}  // namespace
}  // namespace tilec::cli
