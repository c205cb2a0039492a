// Defaults of scalar kernel parameters: `def f(A: T.Tensor((n,), "float32"), n: T.int32 = 4)`.
// A default is the value a parameter takes when the caller gives it none: `tilec run` and
// `tilec interp` without `--shape n=...`, and the interpreter's random arguments
// (make_random_args), which tests and `tilec run` call the kernel with. Positional calls
// through the C++ and Python APIs still pass every argument.
//
// Where it lives: the function attribute param_default_attr(name) =
// "tilec.param_default.<name>", an int64 for integer and bool parameters and a double for
// float ones (the front end converts the written constant to the parameter's dtype and
// refuses one that does not fit). The printer writes it back as `n: T.int32 = 4`.
#pragma once

#include "tilec/ir/function.h"

#include <optional>
#include <string>

namespace tilec::ir {

std::string param_default_attr(const std::string& param);  // "tilec.param_default.<param>"
bool is_param_default_attr(const std::string& key);
// The default of scalar parameter `param` of `func`, or nullopt when it has none.
std::optional<AttrValue> param_default(const PrimFuncNode& func, const std::string& param);

}  // namespace tilec::ir
