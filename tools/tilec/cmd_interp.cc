// `tilec interp FILE [-D NAME=VALUE]... [--seed N] [--shape NAME=VALUE]...`: parses
// and checks a kernel file, then runs every function in the reference interpreter on
// random inputs (outputs start at zero) and prints, per tensor argument,
// "function.arg dtype[shape] checksum=0x...", the same for the same seed on every run.
#include "compile_options.h"
#include "error_report.h"
#include "progress.h"
#include "shape_values.h"
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/check.h"

#include <fmt/format.h>

#include <iostream>

namespace tilec::cli {
namespace {

std::function<int()> setup_interp(CLI::App& sub) {
  auto options = std::make_shared<KernelFileOptions>();
  auto shapes = std::make_shared<std::vector<std::string>>();
  auto seed = std::make_shared<uint64_t>(0);
  add_kernel_file_options(sub, *options);
  sub.add_option("--seed", *seed, "seed of the random inputs (default 0)");
  sub.add_option(
      "--shape", *shapes,
      "value of a symbolic dim or scalar parameter: --shape NAME=VALUE, an integer (M=128) "
      "or, for a float scalar parameter, a number (alpha=1.5); repeatable");
  return [options, shapes, seed]() -> int {
    return report_source_errors([&] {
      for (const auto& d : options->defines) ir::parse_define(d);  // -D errors before --shape's
      ShapeValues values = parse_shape_values(*shapes);
      ir::IRModule module = load_kernel_file(*options);
      require_functions(module, options->file);
      check_shape_names(module, values, read_source(options->file));
      auto diagnostics = ir::check_module(module);
      if (!diagnostics.empty()) {
        std::cerr << format_cli_error(ir::format_diagnostics(diagnostics, options->file,
                                                             read_source(options->file)))
                  << "\n";
        return kExitUsage;
      }
      for (const auto& func : module.functions()) {
        ir::RandomArgs args = random_args_with(func, values, values.integers, *seed);
        interpret_with_progress(func, args.args, "interpreting");
        size_t t = 0;
        for (const auto& param : func->params) {
          if (!param.is_buffer()) continue;
          const ir::HostTensor& tensor = args.tensors[t];
          std::cout << fmt::format("{}.{} {} checksum=0x{:016x}{}\n", func->name, param.name(),
                                   tensor.view().str(), ir::tensor_checksum(tensor.view()),
                                   args.written[t] ? " (output)" : "");
          ++t;
        }
      }
      return kExitOk;
    });
  };
}

TILEC_REGISTER_COMMAND(Command{"interp", setup_interp,
                               "run a kernel file in the reference interpreter on random inputs"});

}  // namespace
}  // namespace tilec::cli
