#include "tilec/frontend/parser.h"

#include "tilec/frontend/autotune.h"

#include "lower/module.h"
#include "parser_syntax.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tilec::ir {

IRModule parse_kernel_source(std::string_view source, const ParseOptions& options,
                             const std::string& entry) {
  frontend::AstModule ast = frontend::parse_syntax(source, options.filename);
  // An autotuned kernel (docs/semantics.md, "Autotuning"): the tuned parameters no -D
  // sets take the first config's values, so the file compiles as written.
  if (source.find("autotune") != std::string_view::npos ||
      source.find("from_kernel") != std::string_view::npos) {
    std::optional<AutotuneSpec> spec;
    try {
      spec = find_autotune_spec(source, options, entry);
    } catch (const IRError&) {
      // Configs that cannot be evaluated leave the parameters to -D and their defaults.
    }
    if (spec && !spec->configs.empty()) {
      bool chosen = false;
      for (const auto& config : spec->configs)
        for (const auto& [name, value] : config) chosen = chosen || options.defines.count(name);
      if (!chosen) {
        ParseOptions with_first = options;
        for (const auto& [name, value] : spec->configs.front()) with_first.defines[name] = value;
        return frontend::lower_module(ast, source, with_first, entry);
      }
    }
  }
  return frontend::lower_module(ast, source, options, entry);
}

IRModule parse_kernel_file(const std::string& path, std::map<std::string, std::string> defines,
                           std::string entry) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw IRError("cannot read kernel file '" + path +
                  "': it is a directory; give the path of a kernel file (.py)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IRError("cannot read kernel file '" + path + "': no such file or not readable");
  std::ostringstream text;
  text << in.rdbuf();
  ParseOptions options;
  options.filename = path;
  options.defines = std::move(defines);
  return parse_kernel_source(text.str(), options, entry);
}

std::pair<std::string, std::string> parse_define(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    throw IRError("define '" + std::string(text) +
                  "' has no '=': write -D NAME=VALUE, e.g. -D M=2048");
  std::string name(text.substr(0, eq));
  bool ident = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ident)
    throw IRError("define '" + std::string(text) + "': '" + name +
                  "' is not a constant name; write -D NAME=VALUE, e.g. -D M=2048");
  return {name, std::string(text.substr(eq + 1))};
}

}  // namespace tilec::ir
