// `tilec check FILE [-D NAME=VALUE]...`: parses a kernel file and runs the semantic
// check. Every diagnostic is printed as file:line:col: error: ..., the source line, a
// caret and a hint (exit status 2); a clean file prints "ok: N function(s)".
// `tilec check --list [--json]`: the T.* constructs the front end knows, from its
// construct table: name, role, family and signature (refused ones included).
#include "compile_options.h"
#include "error_report.h"
#include "tilec/frontend/constructs.h"
#include "tilec/ir/check.h"
#include "tilec/transform/work_item_loops.h"

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

namespace tilec::cli {
namespace {

int list_constructs(bool as_json) {
  auto rows = ir::list_language_constructs();
  if (as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : rows)
      out.push_back({{"name", c.name},
                     {"role", c.role},
                     {"family", c.family},
                     {"signature", c.signature},
                     {"value", c.is_value}});
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& c : rows)
    std::cout << std::left << std::setw(26)
              << c.role + (c.is_value && c.role != "value" ? "+value" : "") << std::setw(17)
              << c.family << c.signature << "\n";
  std::cout << rows.size() << " constructs\n";
  return kExitOk;
}

std::function<int()> setup_check(CLI::App& sub) {
  auto options = std::make_shared<KernelFileOptions>();
  add_kernel_file_options(sub, *options);
  auto list = std::make_shared<bool>(false);
  auto as_json = std::make_shared<bool>(false);
  sub.get_option("file")->required(false);
  sub.add_flag("--list", *list,
               "print the T.* constructs the front end knows (role, family, signature) "
               "instead of checking a file");
  sub.add_flag("--json", *as_json, "with --list: as a JSON array");
  return [options, list, as_json]() -> int {
    if (*list) return list_constructs(*as_json);
    if (options->file.empty()) {
      std::cerr << "tilec: error: check needs a kernel file\n"
                   "  hint: tilec check FILE [-D NAME=VALUE]..., or tilec check --list\n";
      return kExitUsage;
    }
    return report_source_errors([&] {
      ir::IRModule module = load_kernel_file(*options);
      std::string source = read_source(options->file);
      auto diagnostics = ir::check_module(module);
      if (!diagnostics.empty()) {
        std::cerr << format_cli_error(ir::format_diagnostics(diagnostics, options->file, source))
                  << "\n";
        std::cerr << diagnostics.size() << " error(s) in " << options->file << "\n";
        return kExitUsage;
      }
      // Per-thread code's rules (barriers only in uniform control flow, ...) hold on every
      // target; the same pass the CPU model runs reports what breaks them.
      for (const auto& f : module.functions()) transform::work_item_loops(f);
      std::cout << "ok: " << module.size() << " function(s)\n";
      return kExitOk;
    });
  };
}

TILEC_REGISTER_COMMAND(Command{"check", setup_check,
                               "parse a kernel file and run the semantic check"});

}  // namespace
}  // namespace tilec::cli
