// The semantic check run before any lowering. It reports, with a source span and what
// was expected: names used outside the scope that binds them, type errors (non-bool
// conditions, non-integer loop bounds and indices, index count vs rank, mixed operand
// dtypes), tile shape mismatches in copy/gemm/reduce when extents are constant, writes
// to read-only parameters, buffers used outside their allocation, shared/fragment
// allocations outside a T.Kernel, nested T.Kernel, and T.Parallel loops whose
// iterations visibly depend on each other (see check.cc for the exact rule).
#pragma once

#include "tilec/ir/function.h"

#include <string>
#include <string_view>
#include <vector>

namespace tilec::ir {

struct Diagnostic {
  Span span;             // where; line 0 when the IR was not parsed from source
  std::string message;   // what is wrong, naming the construct
  std::string hint;      // what is expected instead
  std::string function;  // the PrimFunc it was found in
};

std::vector<Diagnostic> check_function(const PrimFunc& func);
std::vector<Diagnostic> check_module(const IRModule& module);

// Every diagnostic as "file:line:col: error: message", the source line with a caret
// (when `source` holds the file's text) and "hint: ...", separated by newlines.
std::string format_diagnostics(const std::vector<Diagnostic>& diagnostics,
                               const std::string& filename, std::string_view source = {});

// Throws IRError whose what() is format_diagnostics() of every diagnostic, if any.
void check_module_or_throw(const IRModule& module, const std::string& filename = "",
                           std::string_view source = {});

}  // namespace tilec::ir
