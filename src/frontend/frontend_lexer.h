// Tokenizer for the Python subset of kernel files: names, numbers, strings,
// operators, NEWLINE/INDENT/DEDENT from indentation, comments skipped, implicit line
// joining inside brackets and explicit joining with a trailing backslash. Errors are
// SourceErrors; every step consumes input, so it always terminates.
#pragma once

#include "tilec/ir/source_error.h"

#include <string>
#include <string_view>
#include <vector>

namespace tilec::ir::frontend {

enum class TokenKind { kName, kInt, kFloat, kString, kOp, kNewline, kIndent, kDedent, kEnd };

struct Token {
  TokenKind kind;
  std::string text;  // names, operators, number spelling; decoded value for strings
  Span span;
};

const char* to_string(TokenKind kind);

// Throws SourceError (using `filename` and `source`) on malformed input.
std::vector<Token> tokenize(std::string_view source, const std::string& filename);

// Deepest bracket / indentation nesting accepted.
inline constexpr int kMaxNesting = 200;

}  // namespace tilec::ir::frontend
