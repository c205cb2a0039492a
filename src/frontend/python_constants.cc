#include "python_constants.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace tilec::frontend {

namespace {

[[noreturn]] void bad(std::string_view fn, const std::string& why) {
  throw std::invalid_argument(std::string(fn) + ": " + why);
}

int64_t as_int(std::string_view fn, const PyNumber& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  bad(fn, "expects an int, got a float");
}
double as_float(const PyNumber& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return double(*i);
  return std::get<double>(v);
}
int64_t bit_length(int64_t x) {
  uint64_t u = x < 0 ? uint64_t(0) - uint64_t(x) : uint64_t(x);
  int64_t n = 0;
  for (; u; u >>= 1) ++n;
  return n;
}
int64_t floor_div(std::string_view fn, int64_t a, int64_t b) {
  if (b == 0) bad(fn, "division by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t to_int(std::string_view fn, double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 9.2e18) bad(fn, "the result does not fit an int64");
  return int64_t(v);
}
void arity(std::string_view fn, const std::vector<PyNumber>& args, size_t n) {
  if (args.size() != n)
    bad(fn, "takes " + std::to_string(n) + " argument(s), got " + std::to_string(args.size()));
}

// "tilelang.math.cdiv" and "tilelang.cdiv" -> "cdiv"; other names unchanged.
std::string_view tilelang_math_name(std::string_view name) {
  for (std::string_view prefix : {"tilelang.math.", "tilelang."})
    if (name.substr(0, prefix.size()) == prefix) {
      std::string_view rest = name.substr(prefix.size());
      if (rest == "next_power_of_2" || rest == "cdiv") return rest;
    }
  return name;
}

}  // namespace

std::optional<PyNumber> call_python_constant(std::string_view name,
                                             const std::vector<PyNumber>& args) {
  std::string_view fn = tilelang_math_name(name);
  if (fn == "next_power_of_2") {
    arity(name, args, 1);
    int64_t n = bit_length(as_int(name, args[0]) - 1);
    if (n > 62) bad(name, "the result does not fit an int64");
    return int64_t(1) << n;
  }
  if (fn == "cdiv") {
    arity(name, args, 2);
    int64_t a = as_int(name, args[0]), b = as_int(name, args[1]);
    return floor_div(name, a + b - 1, b);
  }
  if (fn == "int.bit_length") {
    arity(name, args, 1);
    return bit_length(as_int(name, args[0]));
  }
  if (fn == "math.ceil" || fn == "math.floor") {
    arity(name, args, 1);
    if (const auto* i = std::get_if<int64_t>(&args[0])) return *i;
    double v = std::get<double>(args[0]);
    return to_int(name, fn == "math.ceil" ? std::ceil(v) : std::floor(v));
  }
  if (fn == "math.gcd") {
    arity(name, args, 2);
    return int64_t(std::gcd(as_int(name, args[0]), as_int(name, args[1])));
  }
  if (fn == "math.isqrt") {
    arity(name, args, 1);
    int64_t v = as_int(name, args[0]);
    if (v < 0) bad(name, "isqrt of a negative number");
    auto r = int64_t(std::sqrt(double(v)));
    while (r * r > v) --r;
    while ((r + 1) * (r + 1) <= v) ++r;
    return r;
  }
  if (fn == "math.sqrt" || fn == "math.log2" || fn == "math.log" || fn == "math.exp" ||
      fn == "math.log10") {
    if (fn == "math.log" && args.size() == 2) {
      double v = as_float(args[0]), base = as_float(args[1]);
      if (v <= 0 || base <= 0 || base == 1) bad(name, "math domain error");
      return std::log(v) / std::log(base);
    }
    arity(name, args, 1);
    double v = as_float(args[0]);
    if ((fn == "math.sqrt" && v < 0) || (fn != "math.sqrt" && fn != "math.exp" && v <= 0))
      bad(name, "math domain error");
    if (fn == "math.sqrt") return std::sqrt(v);
    if (fn == "math.log2") return std::log2(v);
    if (fn == "math.log10") return std::log10(v);
    if (fn == "math.log") return std::log(v);
    return std::exp(v);
  }
  if (fn == "math.pow") {
    arity(name, args, 2);
    return std::pow(as_float(args[0]), as_float(args[1]));
  }
  return std::nullopt;
}

std::optional<double> python_math_constant(std::string_view name) {
  if (name == "math.pi") return 3.14159265358979323846;
  if (name == "math.e") return 2.71828182845904523536;
  if (name == "math.inf") return std::numeric_limits<double>::infinity();
  return std::nullopt;
}

std::optional<int64_t> dtype_attribute(DataType t, std::string_view attr) {
  if (attr == "bits") return int64_t(t.bits);
  if (attr == "lanes") return int64_t(t.lanes);
  if (attr == "itemsize") return int64_t((t.bits * t.lanes + 7) / 8);
  return std::nullopt;
}

const char* python_constant_functions() {
  return "tilelang.math.next_power_of_2, tilelang.math.cdiv, int.bit_length(), math.ceil, "
         "math.floor, math.sqrt, math.log2, math.log, math.log10, math.exp, math.pow, math.gcd, "
         "math.isqrt, math.pi, math.e, math.inf, DataType(dtype).bits / .lanes / .itemsize";
}

}  // namespace tilec::frontend
