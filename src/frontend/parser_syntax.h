// Syntax parser: tokens of a kernel file -> AstModule. Rejects Python constructs
// outside the DSL subset (while, lambda, class, return, bitwise operators, ...) with
// a SourceError naming what is supported instead; recursion is bounded by kMaxNesting.
#pragma once

#include "ast.h"
#include "lexer.h"

namespace tilec::frontend {

// The front end builds tile IR: its code names the IR's types and factories unqualified.
using namespace ::tilec::ir;

AstModule parse_syntax(std::string_view source, const std::string& filename);

}  // namespace tilec::frontend
