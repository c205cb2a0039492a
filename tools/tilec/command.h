// A `tilec` subcommand registers itself with TILEC_REGISTER_COMMAND in its own
// file (cmd_<name>.cc), so each subcommand stays one self-contained file and
// main.cc never changes when one is added. Registration runs during static
// initialization of the executable only (never of a library), where order does
// not matter because main() reads the list after all of it has run.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tilec::cli {

// Exit statuses shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the job ran and found a problem (e.g. --check mismatch)
inline constexpr int kExitUsage = 2;    // bad input: unknown target, parse error, ...

struct Command {
  std::string name;
  // Adds the subcommand's options to `sub` and returns the action run when it was chosen.
  std::function<std::function<int()>(CLI::App& sub)> setup;
  std::string description;
};

std::vector<Command>& command_list();

struct CommandRegistrar {
  explicit CommandRegistrar(Command command) { command_list().push_back(std::move(command)); }
};

}  // namespace tilec::cli

#define TILEC_CONCAT_INNER(a, b) a##b
#define TILEC_CONCAT(a, b) TILEC_CONCAT_INNER(a, b)
#define TILEC_REGISTER_COMMAND(...) \
  static ::tilec::cli::CommandRegistrar TILEC_CONCAT(tilec_command_, __LINE__){__VA_ARGS__}
