// Tokenizer of kernel files: indentation tokens, comments, joining, literals, errors.
#include "../../src/frontend/lexer.h"

#include <gtest/gtest.h>

namespace tilec::frontend {
namespace {

std::vector<TokenKind> kinds(const std::vector<Token>& tokens) {
  std::vector<TokenKind> out;
  for (const auto& t : tokens) out.push_back(t.kind);
  return out;
}

TEST(Lexer, IndentDedentAndNewlines) {
  auto tokens = tokenize("if x:\n    y = 1\nz\n", "f.py");
  using K = TokenKind;
  EXPECT_EQ(kinds(tokens),
            (std::vector<K>{K::kName, K::kName, K::kOp, K::kNewline, K::kIndent, K::kName, K::kOp,
                            K::kInt, K::kNewline, K::kDedent, K::kName, K::kNewline, K::kEnd}));
  EXPECT_EQ(tokens[5].span.line, 2);
  EXPECT_EQ(tokens[5].span.col, 5);
}

TEST(Lexer, CommentsBlankLinesAndBracketJoining) {
  auto tokens = tokenize("# header\n\nf(a,  # inside\n  b)\n", "f.py");
  std::vector<std::string> texts;
  for (const auto& t : tokens) texts.push_back(t.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"f", "(", "a", ",", "b", ")", "", ""}));
  EXPECT_EQ(tokens.back().kind, TokenKind::kEnd);
}

TEST(Lexer, BackslashContinuationAndDedentToZeroAtEof) {
  auto tokens = tokenize("x = 1 + \\\n    2\nif a:\n  b", "f.py");
  int indents = 0, dedents = 0;
  for (const auto& t : tokens) {
    indents += t.kind == TokenKind::kIndent;
    dedents += t.kind == TokenKind::kDedent;
  }
  EXPECT_EQ(indents, 1);
  EXPECT_EQ(dedents, 1);
  EXPECT_EQ(tokens[4].text, "2");
}

TEST(Lexer, NumbersAndStrings) {
  auto tokens = tokenize("1_000 0x1f 2.5 1e-3 .5 'ab' \"c\\\"d\" \"\"\"doc\"\"\"", "f.py");
  EXPECT_EQ(tokens[0].kind, TokenKind::kInt);
  EXPECT_EQ(tokens[0].text, "1000");
  EXPECT_EQ(tokens[1].text, "0x1f");
  EXPECT_EQ(tokens[2].kind, TokenKind::kFloat);
  EXPECT_EQ(tokens[3].kind, TokenKind::kFloat);
  EXPECT_EQ(tokens[4].kind, TokenKind::kFloat);
  EXPECT_EQ(tokens[5].text, "ab");
  EXPECT_EQ(tokens[6].text, "c\"d");
  EXPECT_EQ(tokens[7].text, "doc");
}

TEST(Lexer, MultiCharOperatorsAreLongestMatch) {
  auto tokens = tokenize("a //= b ** c <= d", "f.py");
  EXPECT_EQ(tokens[1].text, "//=");
  EXPECT_EQ(tokens[3].text, "**");
  EXPECT_EQ(tokens[5].text, "<=");
}

void expect_error(const std::string& src, int line, int col, const std::string& fragment) {
  try {
    tokenize(src, "bad.py");
    FAIL() << "no error for: " << src;
  } catch (const SourceError& e) {
    EXPECT_EQ(e.span().line, line) << e.what();
    EXPECT_EQ(e.span().col, col) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// The Python around kernels (test drivers, messages) uses prefixed strings and
// binary/octal literals: they lex; f-strings are flagged for the parser.
TEST(Lexer, PrefixedStringsAndRadixLiterals) {
  auto tokens = tokenize("a = r'x\\d'\nb = f\"{n}\"\nc = 0b101 + 0o17\n", "p.py");
  ASSERT_GE(tokens.size(), 12u);
  EXPECT_EQ(tokens[2].kind, TokenKind::kString);
  EXPECT_EQ(tokens[2].text, "x\\d");
  EXPECT_FALSE(tokens[2].formatted);
  EXPECT_EQ(tokens[6].kind, TokenKind::kString);
  EXPECT_TRUE(tokens[6].formatted);
  EXPECT_EQ(tokens[10].text, "0b101");
  EXPECT_EQ(tokens[12].text, "0o17");
}

TEST(Lexer, Errors) {
  expect_error("x = 'abc\n", 1, 5, "unterminated string");
  expect_error("x = (1,\n 2\n", 1, 5, "'(' was never closed");
  expect_error("x = 1)\n", 1, 6, "unmatched ')'");
  expect_error("x = $\n", 1, 5, "unexpected character '$'");
  expect_error("if a:\n    b\n  c\n", 3, 3, "unindent does not match");
  expect_error("  x = 1\n", 1, 3, "unexpected indent");
  expect_error("x = q'a'\n", 1, 5, "string prefix");
  expect_error("x = 1e\n", 1, 5, "exponent");
  expect_error("x = \\ y\n", 1, 5, "after line continuation");
  expect_error(std::string(300, '(') + "1", 1, 201, "nested too deeply");
}

}  // namespace
}  // namespace tilec::frontend
