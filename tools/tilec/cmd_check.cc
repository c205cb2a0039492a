// `tilec check FILE [-D NAME=VALUE]...`: parses a kernel file and runs the semantic
// check. Every diagnostic is printed as file:line:col: error: ..., the source line, a
// caret and a hint (exit status 2); a clean file prints "ok: N function(s)".
#include "compile_options.h"
#include "error_report.h"
#include "tilec/ir/check.h"
#include "tilec/transform/work_item_loops.h"

#include <iostream>

namespace tilec::cli {
namespace {

std::function<int()> setup_check(CLI::App& sub) {
  auto options = std::make_shared<KernelFileOptions>();
  add_kernel_file_options(sub, *options);
  return [options]() -> int {
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
