// Syntax parser: tokens of a kernel file -> AstModule. Rejects Python constructs
// outside the DSL subset (while, lambda, class, return, bitwise operators, ...) with
// a SourceError naming what is supported instead; recursion is bounded by kMaxNesting.
#pragma once

#include "frontend_ast.h"
#include "frontend_lexer.h"

namespace tilec::ir::frontend {

AstModule parse_syntax(std::string_view source, const std::string& filename);

}  // namespace tilec::ir::frontend
