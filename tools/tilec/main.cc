// tilec: the command-line driver. Every subcommand lives in its own cmd_*.cc and
// registers itself (command.h); errors go to stderr with exit status 2.
// `tilec` alone prints the help (exit 0), `tilec --version` the project version,
// and an unknown subcommand is named with the nearest one and the full list.
#include "command.h"
#include "error_report.h"

#include "tilec/engine/compile.h"
#include "tilec/target/nearest_name.h"

#include <algorithm>
#include <exception>
#include <iostream>

namespace tilec::cli {
std::vector<Command>& command_list() {
  static std::vector<Command> commands;
  return commands;
}

namespace {

// The first argument when it looks like a subcommand name that is not one, else "".
std::string unknown_command(int argc, char** argv, const std::vector<std::string>& names) {
  if (argc < 2) return "";
  std::string first = argv[1];
  if (first.empty() || first[0] == '-') return "";
  return std::find(names.begin(), names.end(), first) == names.end() ? first : "";
}

}  // namespace
}  // namespace tilec::cli

int main(int argc, char** argv) {
  using namespace tilec::cli;
  CLI::App app{"tilec: a compiler for tile-level kernels with pluggable backends"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("tilec ") + tilec::version(),
                       "print the tilec version and exit");
  auto& commands = command_list();
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  std::vector<std::string> names;
  std::function<int()> action;
  for (auto& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    auto run = command.setup(*sub);
    sub->callback([&action, run] { action = run; });
    names.push_back(command.name);
  }
  if (std::string unknown = unknown_command(argc, argv, names); !unknown.empty()) {
    std::cerr << "tilec: error: unknown command '" << unknown << "'"
              << tilec::target::did_you_mean(unknown, names)
              << "; commands: " << tilec::target::join_names(names)
              << "; run `tilec --help` for what each does\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)
      return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    std::string command = argc > 1 && std::find(names.begin(), names.end(), argv[1]) != names.end()
                              ? std::string(argv[1]) + " "
                              : std::string();
    std::cerr << format_cli_error(std::string(e.what()) + "; run `tilec " + command +
                                  "--help` for the options")
              << "\n";
    return kExitUsage;
  }
  if (!action) {  // no subcommand: greet with the help
    std::cout << app.help();
    return kExitOk;
  }
  try {
    return action();
  } catch (const std::exception& e) {
    std::cerr << format_cli_error(e) << "\n";
    return kExitUsage;
  }
}
