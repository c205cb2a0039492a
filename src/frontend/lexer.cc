#include "lexer.h"

#include <cctype>

namespace tilec::frontend {

const char* to_string(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName:
      return "name";
    case TokenKind::kInt:
      return "integer";
    case TokenKind::kFloat:
      return "float";
    case TokenKind::kString:
      return "string";
    case TokenKind::kOp:
      return "operator";
    case TokenKind::kNewline:
      return "end of line";
    case TokenKind::kIndent:
      return "indent";
    case TokenKind::kDedent:
      return "dedent";
    case TokenKind::kEnd:
      return "end of file";
  }
  return "?";
}

namespace {

class Lexer {
 public:
  Lexer(std::string_view src, const std::string& filename) : src_(src), filename_(filename) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    while (pos_ < src_.size()) {
      if (at_line_start_ && brackets_.empty()) {
        if (!indentation()) continue;  // blank or comment-only line
      }
      char c = src_[pos_];
      if (c == '\n') {
        newline();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        advance();
        continue;
      }
      if (c == '#') {
        skip_comment();
        continue;
      }
      if (c == '\\') {
        continuation();
        continue;
      }
      token_start_ = pos_;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        name();
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && pos_ + 1 < src_.size() &&
                  std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
        number();
      } else if (c == '"' || c == '\'') {
        string();
      } else {
        op();
      }
    }
    if (!brackets_.empty()) {
      fail(brackets_.back().span, std::string("'") + brackets_.back().open + "' was never closed",
           "close it before the end of the file");
    }
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::kNewline &&
        tokens_.back().kind != TokenKind::kDedent) {
      emit(TokenKind::kNewline, "", here());
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      emit(TokenKind::kDedent, "", here());
    }
    emit(TokenKind::kEnd, "", here());
    return std::move(tokens_);
  }

 private:
  struct Bracket {
    char open;
    Span span;
  };

  [[noreturn]] void fail(Span span, std::string message, std::string hint = "") {
    throw make_source_error(filename_, src_, span, std::move(message), std::move(hint));
  }
  Span here() const { return {line_, col_}; }
  void advance() {
    if (src_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  void emit(TokenKind kind, std::string text, Span span) {
    size_t begin = pos_;
    bool spelled = kind != TokenKind::kNewline && kind != TokenKind::kIndent &&
                   kind != TokenKind::kDedent && kind != TokenKind::kEnd;
    if (spelled) begin = token_start_;
    tokens_.push_back({kind, std::move(text), span, begin, pos_});
  }

  void skip_comment() {
    while (pos_ < src_.size() && src_[pos_] != '\n') advance();
  }
  void newline() {
    if (brackets_.empty() && !tokens_.empty() && tokens_.back().kind != TokenKind::kNewline &&
        tokens_.back().kind != TokenKind::kIndent && tokens_.back().kind != TokenKind::kDedent) {
      emit(TokenKind::kNewline, "", here());
    }
    advance();
    at_line_start_ = brackets_.empty();
  }
  void continuation() {
    Span at = here();
    advance();
    while (pos_ < src_.size() && (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\r'))
      advance();
    if (pos_ >= src_.size() || src_[pos_] != '\n')
      fail(at, "unexpected character after line continuation '\\'",
           "a backslash must be the last character of its line");
    advance();
  }

  // Measures the indentation of a new logical line and emits INDENT/DEDENT.
  // Returns false when the line is blank or a comment (nothing emitted).
  bool indentation() {
    int width = 0;
    while (pos_ < src_.size() && (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\f')) {
      width = src_[pos_] == '\t' ? (width / 8 + 1) * 8 : width + 1;
      advance();
    }
    if (pos_ >= src_.size()) return false;
    char c = src_[pos_];
    if (c == '\n' || c == '#' || c == '\r') {
      if (c == '#') skip_comment();
      while (pos_ < src_.size() && src_[pos_] == '\r') advance();
      if (pos_ < src_.size() && src_[pos_] == '\n') advance();
      return false;
    }
    at_line_start_ = false;
    Span span = here();
    if (width > indents_.back()) {
      if (int(indents_.size()) > kMaxNesting)
        fail(span, "blocks nested too deeply (limit " + std::to_string(kMaxNesting) + ")",
             "split the kernel into flatter code");
      if (tokens_.empty()) fail(span, "unexpected indent", "the first line must not be indented");
      indents_.push_back(width);
      emit(TokenKind::kIndent, "", span);
    }
    while (width < indents_.back()) {
      indents_.pop_back();
      emit(TokenKind::kDedent, "", span);
      if (width > indents_.back())
        fail(span, "unindent does not match any outer indentation level",
             "indent with the same number of spaces as an enclosing block");
    }
    return true;
  }

  void name() {
    Span span = here();
    size_t start = pos_;
    while (pos_ < src_.size() &&
           (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
      advance();
    std::string text(src_.substr(start, pos_ - start));
    if (pos_ < src_.size() && (src_[pos_] == '"' || src_[pos_] == '\'') && text.size() <= 2) {
      std::string prefix;
      for (char c : text) prefix += char(std::tolower(static_cast<unsigned char>(c)));
      static const char* const kPrefixes[] = {"r", "u", "b", "f", "rb", "br", "fr", "rf"};
      bool known = false;
      for (const char* p : kPrefixes) known = known || prefix == p;
      if (!known)
        fail(span, "string prefix '" + text + "' is not supported",
             "write a plain string literal such as \"float16\"");
      // Raw, bytes and f-strings occur in the Python around kernels (test drivers,
      // messages); they lex as strings, f-strings flagged for the parser to reject.
      bool raw = prefix.find('r') != std::string::npos;
      string(span, raw);
      tokens_.back().formatted = prefix.find('f') != std::string::npos;
      return;
    }
    emit(TokenKind::kName, std::move(text), span);
  }

  void digits(bool hex = false) {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      bool ok = hex ? std::isxdigit(static_cast<unsigned char>(c))
                    : std::isdigit(static_cast<unsigned char>(c));
      if (!ok && c != '_') break;
      advance();
    }
  }

  void number() {
    Span span = here();
    size_t start = pos_;
    bool is_float = false;
    char radix = pos_ + 1 < src_.size() && src_[pos_] == '0'
                     ? char(std::tolower(static_cast<unsigned char>(src_[pos_ + 1])))
                     : 0;
    if (radix == 'x' || radix == 'b' || radix == 'o') {
      advance();
      advance();
      digits(radix == 'x');
    } else {
      digits();
      if (pos_ < src_.size() && src_[pos_] == '.') {
        is_float = true;
        advance();
        digits();
      }
      if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
        is_float = true;
        advance();
        if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) advance();
        if (pos_ >= src_.size() || !std::isdigit(static_cast<unsigned char>(src_[pos_])))
          fail(span, "malformed number: exponent has no digits", "write e.g. 1e-3");
        digits();
      }
    }
    if (pos_ < src_.size() &&
        (std::isalpha(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
      fail(here(), "malformed number literal", "numbers are decimal (1, 2.5, 1e-3) or hex (0x1f)");
    std::string text;
    for (size_t i = start; i < pos_; ++i)
      if (src_[i] != '_') text += src_[i];
    emit(is_float ? TokenKind::kFloat : TokenKind::kInt, std::move(text), span);
  }

  void string() { string(here(), false); }
  // `span` is where the literal starts (its prefix, if any); pos_ is at the quote.
  void string(Span span, bool raw) {
    char quote = src_[pos_];
    bool triple = pos_ + 2 < src_.size() && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote;
    for (int i = 0; i < (triple ? 3 : 1); ++i) advance();
    std::string value;
    while (true) {
      if (pos_ >= src_.size()) fail(span, "unterminated string literal", "close the string");
      char c = src_[pos_];
      if (!triple && c == '\n')
        fail(span, "unterminated string literal", "close the string on the same line");
      if (c == quote) {
        if (!triple) {
          advance();
          break;
        }
        if (pos_ + 2 < src_.size() && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote) {
          for (int i = 0; i < 3; ++i) advance();
          break;
        }
      }
      if (c == '\\' && pos_ + 1 < src_.size()) {
        advance();
        char e = src_[pos_];
        if (raw) value += '\\';
        value += raw ? e : e == 'n' ? '\n' : e == 't' ? '\t' : e;
        advance();
        continue;
      }
      value += c;
      advance();
    }
    emit(TokenKind::kString, std::move(value), span);
  }

  void op() {
    static const char* const kOps[] = {"**=", "//=", ">>=", "<<=", "->", "**", "//", "==", "!=",
                                       "<=",  ">=",  "+=",  "-=",  "*=", "/=", "%=", "<<", ">>",
                                       "&=",  "|=",  "^=",  ":=",  "+",  "-",  "*",  "/",  "%",
                                       "<",   ">",   "=",   "(",   ")",  "[",  "]",  "{",  "}",
                                       ",",   ":",   ".",   "@",   "&",  "|",  "^",  "~",  ";"};
    Span span = here();
    for (const char* candidate : kOps) {
      std::string_view op(candidate);
      if (src_.substr(pos_, op.size()) != op) continue;
      for (size_t i = 0; i < op.size(); ++i) advance();
      if (op == "(" || op == "[" || op == "{") {
        if (int(brackets_.size()) >= kMaxNesting)
          fail(span, "brackets nested too deeply (limit " + std::to_string(kMaxNesting) + ")",
               "simplify the expression");
        brackets_.push_back({op[0], span});
      } else if (op == ")" || op == "]" || op == "}") {
        char want = op == ")" ? '(' : op == "]" ? '[' : '{';
        if (brackets_.empty() || brackets_.back().open != want)
          fail(span, "unmatched '" + std::string(op) + "'", "check the brackets of this line");
        brackets_.pop_back();
      }
      emit(TokenKind::kOp, std::string(op), span);
      return;
    }
    unsigned char c = static_cast<unsigned char>(src_[pos_]);
    std::string shown = std::isprint(c) ? std::string(1, char(c)) : "\\x" + fmt_hex(c);
    fail(span, "unexpected character '" + shown + "'",
         "kernel files use Python syntax in ASCII outside strings and comments");
  }
  static std::string fmt_hex(unsigned char c) {
    const char* digits = "0123456789abcdef";
    return {digits[c >> 4], digits[c & 15]};
  }

  std::string_view src_;
  const std::string& filename_;
  size_t pos_ = 0;
  size_t token_start_ = 0;  // where the token being lexed begins
  int line_ = 1, col_ = 1;
  bool at_line_start_ = true;
  std::vector<int> indents_;
  std::vector<Bracket> brackets_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source, const std::string& filename) {
  return Lexer(source, filename).run();
}

}  // namespace tilec::frontend
