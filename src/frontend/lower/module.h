// Lowering of a kernel file's syntax tree to tile IR: resolves names (module
// constants, -D overrides, symbolic dims, parameters, bindings, buffers), maps each
// T.* construct to its IR node through the ir factories, and turns every IRError of
// a factory into a SourceError at the construct's location.
#pragma once

#include "../ast.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/function.h"

namespace tilec::frontend {

// The front end builds tile IR: its code names the IR's types and factories unqualified.
using namespace ::tilec::ir;

// `entry`: the kernel or factory to lower ("" = as parse_kernel_source says).
IRModule lower_module(const AstModule& module, std::string_view source, const ParseOptions& options,
                      const std::string& entry);

}  // namespace tilec::frontend
