// `tilec interp FILE [-D NAME=VALUE]... [--seed N] [--shape NAME=VALUE]...`: parses
// and checks a kernel file, then runs every function in the reference interpreter on
// random inputs (outputs start at zero) and prints, per tensor argument,
// "function.arg dtype[shape] checksum=0x...", the same for the same seed on every run.
#include "compile_options.h"
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/check.h"

#include <fmt/format.h>

#include <charconv>
#include <iostream>

namespace tilec::cli {
namespace {

std::map<std::string, int64_t> parse_shape_values(const std::vector<std::string>& items) {
  std::map<std::string, int64_t> values;
  for (const auto& item : items) {
    auto [name, text] = ir::parse_define(item);
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      throw ir::IRError(
          "--shape " + item + ": '" + text +
          "' is not an integer; give symbolic dims as NAME=INTEGER, e.g. --shape N=1024");
    }
    values[name] = value;
  }
  return values;
}

std::function<int()> setup_interp(CLI::App& sub) {
  auto options = std::make_shared<KernelFileOptions>();
  auto shapes = std::make_shared<std::vector<std::string>>();
  auto seed = std::make_shared<uint64_t>(0);
  add_kernel_file_options(sub, *options);
  sub.add_option("--seed", *seed, "seed of the random inputs (default 0)");
  sub.add_option("--shape", *shapes,
                 "value of a symbolic dim or scalar parameter: --shape NAME=VALUE (repeatable)");
  return [options, shapes, seed]() -> int {
    return report_source_errors([&] {
      for (const auto& d : options->defines) ir::parse_define(d);  // -D errors before --shape's
      std::map<std::string, int64_t> dims = parse_shape_values(*shapes);
      ir::IRModule module = load_kernel_file(*options);
      auto diagnostics = ir::check_module(module);
      if (!diagnostics.empty()) {
        std::cerr << ir::format_diagnostics(diagnostics, options->file, read_source(options->file))
                  << "\n";
        return kExitUsage;
      }
      for (const auto& func : module.functions()) {
        ir::RandomArgs args = ir::make_random_args(func, dims, *seed);
        ir::interpret(func, args.args);
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
