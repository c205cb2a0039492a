// tilec: the command-line driver. Every subcommand lives in its own cmd_*.cc and
// registers itself (command.h); errors go to stderr with exit status 2.
#include "command.h"

#include <algorithm>
#include <exception>
#include <iostream>

namespace tilec::cli {
std::vector<Command>& command_list() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace tilec::cli

int main(int argc, char** argv) {
  using namespace tilec::cli;
  CLI::App app{"tilec: a compiler for tile-level kernels with pluggable backends"};
  app.require_subcommand(1);
  auto& commands = command_list();
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  std::function<int()> action;
  for (auto& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    auto run = command.setup(*sub);
    sub->callback([&action, run] { action = run; });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  try {
    return action ? action() : kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "tilec: error: " << e.what() << "\n";
    return kExitUsage;
  }
}
