// Printer for the tile IR in TileLang DSL syntax: module constants are inlined,
// symbolic dims become module-level `M = T.symbolic("M")`, and the output parses back
// (parse_kernel_source) to a structurally equal module. Lowered-only forms (launches,
// strides, thread bindings, function-kind attributes) print readably but may not re-parse.
#pragma once

#include "tilec/ir/function.h"

#include <string>

namespace tilec::ir {

std::string print(const IRModule& module);
std::string print(const PrimFunc& func);  // one function with its imports and symbolic dims
std::string print(const Stmt& stmt);      // statements at indentation 0
std::string print(const Expr& expr);

}  // namespace tilec::ir
