// `tilec fmt FILE [-D NAME=VALUE]...`: parses a kernel file and prints its
// canonical form (constants inlined, symbolic dims declared at the top). Bad input
// prints the SourceError (file:line:col, the line and a caret) and exits 2.
#include "compile_options.h"
#include "tilec/ir/printer.h"

#include <iostream>

namespace tilec::cli {
namespace {

std::function<int()> setup_fmt(CLI::App& sub) {
  auto options = std::make_shared<KernelFileOptions>();
  add_kernel_file_options(sub, *options);
  return [options]() -> int {
    return report_source_errors([&] {
      std::cout << ir::print(load_kernel_file(*options));
      return kExitOk;
    });
  };
}

TILEC_REGISTER_COMMAND(Command{"fmt", setup_fmt, "print a kernel file in canonical form"});

}  // namespace
}  // namespace tilec::cli
