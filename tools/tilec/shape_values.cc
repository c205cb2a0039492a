#include "shape_values.h"

#include "tilec/engine/engine_error.h"
#include "tilec/frontend/parser.h"
#include "tilec/target/nearest_name.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <regex>
#include <set>

namespace tilec::cli {

ShapeValues parse_shape_values(const std::vector<std::string>& items) {
  ShapeValues values;
  for (const auto& item : items) {
    auto [name, text] = ir::parse_define(item);
    values.text[name] = text;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    bool whole = !text.empty() && ptr == text.data() + text.size();
    if (ec == std::errc::result_out_of_range && whole)
      throw EngineError(
          fmt::format("--shape {}: {} is out of range for a 64-bit extent", item, text));
    if (ec == std::errc() && whole) {
      values.integers[name] = value;  // a negative one only for a float parameter (checked later)
      values.reals.erase(name);       // a later --shape of a name wins
      continue;
    }
    // Not an integer: a number for a float scalar parameter, as strtod reads it.
    char* end = nullptr;
    double real = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size())
      throw EngineError(fmt::format(
          "--shape {}: '{}' is not an integer or a number; write NAME=VALUE, e.g. --shape "
          "M=128 for a dimension or --shape alpha=1.5 for a float scalar parameter",
          item, text));
    values.reals[name] = real;
    values.integers.erase(name);
  }
  return values;
}

namespace {

// What a --shape name stands for in a module, for the dtype check and messages.
struct ShapeName {
  bool dimension = false;
  ir::DataType dtype;    // of the scalar parameter (int32 for a dimension)
  std::string function;  // a function that has it
};

std::map<std::string, ShapeName> shape_names(const ir::IRModule& module) {
  std::map<std::string, ShapeName> names;
  for (const auto& func : module.functions()) {
    for (const auto& v : ir::symbolic_shape_vars(func))
      names[v.name()] = {true, v.dtype(), func->name};
    for (const auto& p : func->params)
      if (!p.is_buffer() && !names.count(p.name()))
        names[p.name()] = {false, p.var.dtype(), func->name};
  }
  return names;
}

}  // namespace

void check_shape_names(const ir::IRModule& module, const ShapeValues& values,
                       const std::string& source) {
  std::map<std::string, ShapeName> names = shape_names(module);
  std::vector<std::string> known;
  for (const auto& [name, what] : names) known.push_back(name);
  for (const auto& [name, text] : values.text) {
    auto it = names.find(name);
    if (it == names.end()) {
      std::regex assigned("(^|\\n)" + name + "\\s*=");
      std::string accepted =
          known.empty() ? "none (every dimension is a constant)" : target::join_names(known);
      if (std::regex_search(source, assigned))
        throw EngineError(fmt::format(
            "--shape {}={}: '{}' is a module constant, not a symbolic dimension or scalar "
            "parameter; set it with -D {}={}. --shape accepts: {}",
            name, text, name, name, text, accepted));
      throw EngineError(fmt::format(
          "--shape {}={}: the kernel has no symbolic dimension or scalar parameter '{}'{}; "
          "--shape accepts: {}",
          name, text, name, target::did_you_mean(name, known), accepted));
    }
    const ShapeName& what = it->second;
    std::string kind =
        what.dimension ? "symbolic dimension" : "scalar parameter of '" + what.function + "'";
    if (values.reals.count(name) && (what.dimension || !what.dtype.is_float()))
      throw EngineError(fmt::format(
          "--shape {}={}: '{}' ({}, dtype {}) takes an integer, not {}; only float-typed "
          "scalar parameters take a fraction",
          name, text, name, kind, what.dtype.str(), text));
    auto integer = values.integers.find(name);
    if (integer != values.integers.end() && integer->second < 0 && !what.dtype.is_float())
      throw EngineError(fmt::format("--shape {}={}: '{}' ({}, dtype {}) must not be negative", name,
                                    text, name, kind, what.dtype.str()));
    if (what.dimension && integer != values.integers.end() && integer->second == 0)
      throw EngineError(fmt::format("--shape {}=0: a symbolic dimension must be positive", name));
  }
}

ir::RandomArgs random_args_with(const ir::PrimFunc& func, const ShapeValues& values,
                                std::map<std::string, int64_t> integers, uint64_t seed) {
  // make_random_args takes integers only: a float parameter gets a stand-in (so it is
  // not reported missing) that is replaced by the given number below.
  std::map<size_t, double> reals;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const ir::Param& p = func->params[i];
    auto it = p.is_buffer() ? values.reals.end() : values.reals.find(p.name());
    if (it == values.reals.end()) continue;
    integers[p.name()] = 0;
    reals[i] = it->second;
  }
  ir::RandomArgs args = ir::make_random_args(func, integers, seed);
  for (const auto& [index, real] : reals) args.args[index] = real;
  return args;
}

}  // namespace tilec::cli
