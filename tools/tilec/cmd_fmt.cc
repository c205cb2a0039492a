// `tilec fmt FILE [-D NAME=VALUE]...`: prints the kernel file in canonical layout
// (tilec/frontend/format.h): the user's tokens, comments and blank-line structure
// kept, module constants kept as names; a -D define replaces that constant's value.
// The file is parsed and checked for syntax first, so bad input prints the
// SourceError (file:line:col, the line and a caret) and exits 2.
#include "compile_options.h"
#include "tilec/frontend/format.h"

#include <iostream>
#include <map>

namespace tilec::cli {
namespace {

std::function<int()> setup_fmt(CLI::App& sub) {
  auto options = std::make_shared<KernelFileOptions>();
  add_kernel_file_options(sub, *options);
  return [options]() -> int {
    return report_source_errors([&] {
      load_kernel_file(*options);  // syntax and -D errors, with their locations
      std::map<std::string, std::string> defines;
      for (const auto& d : options->defines) {
        auto [name, value] = ir::parse_define(d);
        defines[name] = value;
      }
      std::cout << ir::format_kernel_source(read_source(options->file), options->file, defines);
      return kExitOk;
    });
  };
}

TILEC_REGISTER_COMMAND(Command{"fmt", setup_fmt,
                               "print a kernel file in canonical layout (comments and constant "
                               "names kept)"});

}  // namespace
}  // namespace tilec::cli
