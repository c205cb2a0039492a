// The plain-Python and tilelang.math functions a factory computes its sizes with, run by
// the front end's constant evaluator on constant arguments (never a Python interpreter):
// tilelang.math's next_power_of_2 and cdiv (also reached as tilelang.X), int.bit_length,
// Python's math module (ceil, floor, sqrt, log2, log, exp, pow, gcd, isqrt, pi, e, inf)
// and TVM's DataType queries (bits, lanes, itemsize). Each follows Python's definition:
// next_power_of_2(x) = 1 << (x - 1).bit_length(); cdiv(a, b) = (a + b - 1) // b.
#pragma once

#include "tilec/ir/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tilec::frontend {

// The front end builds tile IR: its code names the IR's types and factories unqualified.
using namespace ::tilec::ir;

// A Python number: int (arbitrary in Python; int64 here) or float.
using PyNumber = std::variant<int64_t, double>;

// `name` is the function's dotted path after module aliases are resolved, e.g.
// "tilelang.math.next_power_of_2", "tilelang.cdiv", "math.sqrt", "int.bit_length" (the
// method, with the int as first argument). nullopt when the name is not one of them;
// throws std::invalid_argument (a message naming the function and the rule) for a wrong
// argument count, a float where an int is needed, a division by zero, a domain error or
// an int64 overflow.
std::optional<PyNumber> call_python_constant(std::string_view name,
                                             const std::vector<PyNumber>& args);

// "math.pi", "math.e", "math.inf"; nullopt for other names.
std::optional<double> python_math_constant(std::string_view name);

// TVM's DataType(d).<attr> for attr in bits, lanes, itemsize (bytes per element, lanes
// included); nullopt for other attributes.
std::optional<int64_t> dtype_attribute(DataType t, std::string_view attr);

// The names above, for error messages.
const char* python_constant_functions();

}  // namespace tilec::frontend
