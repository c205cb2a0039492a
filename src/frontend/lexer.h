// Tokenizer for the Python subset of kernel files: names, numbers, strings,
// operators, NEWLINE/INDENT/DEDENT from indentation, comments skipped, implicit line
// joining inside brackets and explicit joining with a trailing backslash. Errors are
// SourceErrors; every step consumes input, so it always terminates.
#pragma once

#include "tilec/ir/source_error.h"

#include <string>
#include <string_view>
#include <vector>

namespace tilec::frontend {

// The front end builds tile IR: its code names the IR's types and factories unqualified.
using namespace ::tilec::ir;

enum class TokenKind { kName, kInt, kFloat, kString, kOp, kNewline, kIndent, kDedent, kEnd };

struct Token {
  TokenKind kind;
  std::string text;  // names, operators, number spelling; decoded value for strings
  Span span;
  // Byte offsets of the token's spelling in the source, [begin, end); for NEWLINE,
  // INDENT, DEDENT and END both are where the lexer stood (the formatter keeps
  // comments and blank lines from the text between tokens).
  size_t begin = 0;
  size_t end = 0;
  // kString spelled with an f prefix (f"..."): kept as its raw text so Python code
  // outside kernels lexes; the syntax parser rejects it inside kernel code.
  bool formatted = false;
};

const char* to_string(TokenKind kind);

// Throws SourceError (using `filename` and `source`) on malformed input.
std::vector<Token> tokenize(std::string_view source, const std::string& filename);

// Deepest bracket / indentation nesting accepted.
inline constexpr int kMaxNesting = 200;

}  // namespace tilec::frontend
