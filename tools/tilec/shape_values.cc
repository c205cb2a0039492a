#include "shape_values.h"

#include "tilec/engine/engine_error.h"
#include "tilec/frontend/parser.h"
#include "tilec/target/nearest_name.h"

#include <fmt/format.h>

#include <fmt/ranges.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
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
    if (values.reals.count(name) && (what.dimension || !what.dtype.is_float())) {
      double real = values.reals.at(name);
      std::string digits =
          real == std::floor(real) && std::fabs(real) < 9.2e18
              ? fmt::format("; write it in digits: --shape {}={}", name, int64_t(real))
              : fmt::format("; write an integer in decimal digits, e.g. --shape {}=4096", name);
      throw EngineError(fmt::format(
          "--shape {}={}: '{}' ({}, dtype {}) takes an integer, not {}{}; only float-typed "
          "scalar parameters take a fraction or an exponent",
          name, text, name, kind, what.dtype.str(), text, digits));
    }
    auto integer = values.integers.find(name);
    if (integer != values.integers.end() && integer->second < 0 && !what.dtype.is_float())
      throw EngineError(fmt::format("--shape {}={}: '{}' ({}, dtype {}) must not be negative", name,
                                    text, name, kind, what.dtype.str()));
    if (what.dimension && integer != values.integers.end() && integer->second == 0)
      throw EngineError(fmt::format("--shape {}=0: a symbolic dimension must be positive", name));
    // A value its dtype cannot hold would wrap in the kernel: refused before anything runs.
    if (integer != values.integers.end() && what.dtype.is_integer() && what.dtype.bits < 64) {
      int bits = what.dtype.bits - (what.dtype.is_int() ? 1 : 0);
      int64_t most = (int64_t{1} << bits) - 1;
      if (integer->second > most)
        throw EngineError(fmt::format(
            "--shape {}={}: '{}' ({}, dtype {}) holds at most {}; pass a smaller value{}", name,
            text, name, kind, what.dtype.str(), most,
            what.dimension ? fmt::format(", or declare it 64-bit in the kernel: {} = "
                                         "T.dynamic(\"{}\", \"int64\")",
                                         name, name)
                           : fmt::format(", or declare '{}' int64", name)));
    }
  }
}

namespace {

// Bytes of memory this machine has available now (MemAvailable), or nullopt if unknown.
std::optional<uint64_t> available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    uint64_t kib = 0;
    if (key == "MemAvailable:" && meminfo >> kib) return kib * 1024;
    meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return uint64_t(pages) * uint64_t(page);
  return std::nullopt;
}

std::string human_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 6) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} bytes", bytes)
                   : fmt::format("{:.1f} {}", bytes, units[unit]);
}

}  // namespace

void check_argument_memory(const ir::PrimFunc& func, const std::map<std::string, int64_t>& values,
                           int copies, std::optional<uint64_t> available) {
  if (!available) available = available_memory_bytes();
  // Long double: a product of extents past 2^64 still compares right.
  long double total = 0;
  std::vector<std::string> parts;
  for (const auto& p : func->params) {
    if (!p.is_buffer()) continue;
    long double elements = 1;
    std::vector<std::string> dims;
    bool known = true;
    for (const auto& d : p.buffer->shape) {
      int64_t extent = 0;
      if (auto* c = ir::as_const_int(d)) {
        extent = *c;
      } else if (auto* v = d.as<ir::VarNode>(); v && values.count(v->name)) {
        extent = values.at(v->name);
      } else {
        known = false;  // make_random_args names what is missing
        break;
      }
      elements *= static_cast<long double>(extent);
      dims.push_back(std::to_string(extent));
    }
    if (!known) continue;
    long double bytes = elements * p.buffer->dtype.bits * p.buffer->dtype.lanes / 8;
    total += bytes;
    parts.push_back(fmt::format("{} {}[{}] {}", p.name(), p.buffer->dtype.str(),
                                fmt::join(dims, ", "), human_bytes(double(bytes))));
  }
  long double needed = total * copies;
  if (!available || needed <= static_cast<long double>(*available)) return;
  throw EngineError(fmt::format(
      "the arguments of '{}' need {} ({}{}), more than the {} of memory this machine has "
      "available; pass smaller --shape/-D values",
      func->name, human_bytes(double(needed)), fmt::join(parts, ", "),
      copies > 1 ? fmt::format("; x{}: --check keeps a copy for the interpreter", copies) : "",
      human_bytes(double(*available))));
}

ir::RandomArgs random_args_with(const ir::PrimFunc& func, const ShapeValues& values,
                                std::map<std::string, int64_t> integers, uint64_t seed) {
  // make_random_args takes integers only: a float parameter gets a stand-in (so it is
  // not reported missing) that is replaced by the given number below.
  check_argument_memory(func, integers, 1);
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
