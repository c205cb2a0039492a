// The values `--shape NAME=VALUE` gives (run, interp): symbolic dimensions and scalar
// parameters. A value is an integer (`M=128`) or, for a float-typed scalar parameter, a
// number in any spelling strtod reads (`alpha=1.5`, `eps=1e-6`, `bias=-2`); a float
// for a dimension or an integer-typed parameter is an error naming it, its dtype and
// the value, and so is a negative integer for one. Parsing and the check against the module are
// separate because the check needs the parsed kernel file and parse errors should come first.
#pragma once

#include "tilec/interp/interpreter.h"
#include "tilec/ir/function.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilec::cli {

struct ShapeValues {
  std::map<std::string, int64_t> integers;  // written as integers: dims and any scalar
  std::map<std::string, double> reals;      // written with a fraction or exponent
  std::map<std::string, std::string> text;  // every value as written, for messages
};

// --shape NAME=VALUE items as values; throws EngineError when a value is not a number.
ShapeValues parse_shape_values(const std::vector<std::string>& items);

// Throws EngineError when a --shape name is not a symbolic dimension or scalar
// parameter of any function in `module` (a module constant is named as one, with
// the -D spelling to use instead; the names that can be given are listed), when a
// dimension is 0, when a non-integer or a negative integer is given for a dimension
// or an integer scalar, or when an integer does not fit its dtype (3000000000 for an int32
// dimension).
void check_shape_names(const ir::IRModule& module, const ShapeValues& values,
                       const std::string& source);

// Throws EngineError when the tensor arguments of `func` at these dimension values, `copies`
// times over (2 with --check: the interpreter's copy), need more memory than `available`
// (default: what this machine has available now), naming each tensor and its size: checked
// before anything is allocated, so a huge --shape fails at once instead of after seconds of
// input generation. Dimensions with no value are skipped (make_random_args names them).
void check_argument_memory(const ir::PrimFunc& func, const std::map<std::string, int64_t>& values,
                           int copies, std::optional<uint64_t> available = std::nullopt);

// Random arguments of `func` (ir::make_random_args) with the scalar parameters that
// `values.reals` names set to those numbers; check_argument_memory() first.
ir::RandomArgs random_args_with(const ir::PrimFunc& func, const ShapeValues& values,
                                std::map<std::string, int64_t> integers, uint64_t seed);

}  // namespace tilec::cli
