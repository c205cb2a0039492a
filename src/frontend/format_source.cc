#include "tilec/frontend/format.h"

#include "lexer.h"

#include <algorithm>
#include <set>

namespace tilec::ir {

namespace {

using frontend::Token;
using frontend::TokenKind;

bool is_spelled(const Token& t) {
  return t.kind == TokenKind::kName || t.kind == TokenKind::kInt || t.kind == TokenKind::kFloat ||
         t.kind == TokenKind::kString || t.kind == TokenKind::kOp;
}

bool is_keyword(const Token& t) {
  static const std::set<std::string> keywords = {
      "and",      "as",     "assert", "def",    "del",     "elif",   "else",     "for",
      "from",     "if",     "import", "in",     "is",      "lambda", "not",      "or",
      "pass",     "return", "while",  "with",   "yield",   "break",  "continue", "global",
      "nonlocal", "raise",  "try",    "except", "finally", "class"};
  return t.kind == TokenKind::kName && keywords.count(t.text) > 0;
}

bool is_op(const Token& t, std::string_view op) {
  return t.kind == TokenKind::kOp && t.text == op;
}

bool is_operand_end(const Token& t) {  // the token can end an operand: a following +/- is binary
  if (t.kind == TokenKind::kOp) return t.text == ")" || t.text == "]" || t.text == "}";
  return !is_keyword(t) || t.text == "None" || t.text == "True" || t.text == "False";
}

// The comment text of one line of a gap ("" when none): from '#' to the line end.
std::string comment_in(std::string_view line) {
  size_t hash = line.find('#');
  if (hash == std::string_view::npos) return "";
  std::string text(line.substr(hash));
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.pop_back();
  return text;
}

class Formatter {
 public:
  Formatter(std::string_view source, const std::map<std::string, std::string>& defines,
            std::vector<Token> tokens)
      : src_(source), defines_(defines), tokens_(std::move(tokens)) {}

  std::string run() {
    size_t prev_end = 0;  // end of the last spelled token
    bool line_open = false;
    size_t i = 0;
    while (i < tokens_.size()) {
      const Token& t = tokens_[i];
      if (t.kind == TokenKind::kIndent) {
        ++depth_;
        ++i;
        continue;
      }
      if (t.kind == TokenKind::kDedent) {
        --depth_;
        ++i;
        continue;
      }
      if (t.kind == TokenKind::kNewline) {
        line_open = false;
        ++i;
        continue;
      }
      if (t.kind == TokenKind::kEnd) {
        gap(prev_end, src_.size(), false);
        depth_ = 0;
        out_ += "\n";
        flush_pending();  // comments after the last statement
        break;
      }
      gap(prev_end, t.begin, line_open);
      if (!line_open) {
        start_line();
        line_open = true;
        size_t defined = define_at(i);
        if (defined != i) {
          prev_end = tokens_[defined - 1].end;
          i = defined;
          continue;
        }
      }
      emit_token(i);
      prev_end = t.end;
      ++i;
    }
    while (!out_.empty() && out_.back() == '\n') out_.pop_back();
    out_ += '\n';
    return out_;
  }

 private:
  // The text between two tokens: a trailing comment, comment-only and blank lines.
  void gap(size_t from, size_t to, bool inside_line) {
    std::string_view text = src_.substr(from, to - from);
    size_t nl = text.find('\n');
    std::string trailing = comment_in(text.substr(0, nl));
    if (!trailing.empty() && from > 0) out_ += "  " + trailing;
    if (nl == std::string_view::npos) return;
    if (inside_line) {  // a line break inside brackets: keep it, as a continuation line
      std::string_view rest = text.substr(nl + 1);
      for (size_t at = 0; at < rest.size();) {
        size_t end = rest.find('\n', at);
        if (end == std::string_view::npos) break;
        std::string c = comment_in(rest.substr(at, end - at));
        if (!c.empty()) out_ += "\n" + continuation_indent() + c;
        at = end + 1;
      }
      if (brackets_.empty()) out_ += " \\";  // outside brackets the break needs its backslash
      bool closes = to < src_.size() && (src_[to] == ')' || src_[to] == ']' || src_[to] == '}');
      // A bracket that ends its line opens a hanging indent of one level (black's layout);
      // other continuations are indented two levels, clear of the body below.
      if (!hanging_.empty() && !out_.empty() &&
          (out_.back() == '(' || out_.back() == '[' || out_.back() == '{'))
        hanging_.back() = true;
      out_ += "\n" + (closes ? indent() : continuation_indent());  // a closing bracket lines up
      continuation_ = true;
      return;
    }
    pending_.clear();
    std::string_view rest = text.substr(nl + 1);
    size_t at = 0;
    while (at <= rest.size()) {
      size_t end = rest.find('\n', at);
      if (end == std::string_view::npos) break;  // the last piece is the next line's indent
      std::string c = comment_in(rest.substr(at, end - at));
      pending_.push_back(c);  // "" = a blank line
      at = end + 1;
    }
    if (from == 0) {  // the text before the first token: every line of it is a line
      std::string c = comment_in(text.substr(0, nl));
      pending_.insert(pending_.begin(), c);
    }
  }

  void start_line() {
    if (!out_.empty()) out_ += "\n";
    flush_pending();
    out_ += indent();
    brackets_.clear();
    hanging_.clear();
    continuation_ = false;
  }

  void flush_pending() {
    int blanks = 0;
    for (const auto& line : pending_) {
      if (line.empty()) {
        ++blanks;
        continue;
      }
      flush_blanks(blanks);
      out_ += indent() + line + "\n";
    }
    flush_blanks(blanks);
    pending_.clear();
  }

  void flush_blanks(int& blanks) {
    if (!out_.empty()) out_.append(size_t(std::min(blanks, 2)), '\n');
    blanks = 0;
  }

  // `NAME = value` at module level with NAME defined by -D: the value is replaced.
  // Returns the index of the line's NEWLINE token when it did, else i.
  size_t define_at(size_t i) {
    if (depth_ != 0 || i + 2 >= tokens_.size()) return i;
    const Token& name = tokens_[i];
    auto it = name.kind == TokenKind::kName ? defines_.find(name.text) : defines_.end();
    if (it == defines_.end() || !is_op(tokens_[i + 1], "=")) return i;
    size_t end = i + 2;
    while (end < tokens_.size() && tokens_[end].kind != TokenKind::kNewline) ++end;
    std::string value = it->second;
    bool was_string = tokens_[i + 2].kind == TokenKind::kString && end == i + 3;
    bool quoted = value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
                  value.back() == value.front();
    if (was_string && !quoted) value = "\"" + value + "\"";
    out_ += name.text + " = " + value;
    return end;
  }

  std::string indent() const { return std::string(size_t(depth_) * 4, ' '); }
  std::string continuation_indent() const {
    bool hanging = !hanging_.empty() && hanging_.back();
    return std::string(size_t(depth_) * 4 + (hanging ? 4 : 8), ' ');
  }

  bool in_brackets(char open) const { return !brackets_.empty() && brackets_.back() == open; }

  void emit_token(size_t i) {
    const Token& t = tokens_[i];
    std::string_view spelling = src_.substr(t.begin, t.end - t.begin);
    bool first = out_.empty() || out_.back() == '\n' || continuation_;
    continuation_ = false;
    const Token* prev = nullptr;
    for (size_t j = i; j-- > 0;) {
      if (is_spelled(tokens_[j])) {
        prev = &tokens_[j];
        break;
      }
      if (tokens_[j].kind == TokenKind::kNewline) break;
    }
    if (!first && prev && space_between(*prev, t)) out_ += ' ';
    out_ += spelling;
    if (t.kind == TokenKind::kOp) {
      if (t.text == "(" || t.text == "[" || t.text == "{") {
        brackets_.push_back(t.text[0]);
        hanging_.push_back(false);
      }
      if ((t.text == ")" || t.text == "]" || t.text == "}") && !brackets_.empty()) {
        brackets_.pop_back();
        hanging_.pop_back();
      }
    }
    unary_ = false;
    if ((is_op(t, "-") || is_op(t, "+") || is_op(t, "~") || is_op(t, "*") || is_op(t, "**")) &&
        (!prev || !is_operand_end(*prev)))
      unary_ = true;
  }

  bool space_between(const Token& prev, const Token& cur) {
    if (unary_) return false;  // -x, *args
    if (is_op(prev, "(") || is_op(prev, "[") || is_op(prev, "{") || is_op(prev, ".") ||
        is_op(prev, "@"))
      return false;
    if (is_op(cur, ")") || is_op(cur, "]") || is_op(cur, "}") || is_op(cur, ",") ||
        is_op(cur, ".") || is_op(cur, ";"))
      return false;
    if (is_op(cur, ":")) return false;
    if (is_op(prev, ":")) return !in_brackets('[');
    if (is_op(cur, "(") || is_op(cur, "["))
      return !(is_operand_end(prev) && prev.kind != TokenKind::kInt &&
               prev.kind != TokenKind::kFloat);
    if (is_op(prev, "=") || is_op(cur, "=")) return !in_brackets('(');  // f(k=v), x = v
    return true;
  }

  std::string_view src_;
  const std::map<std::string, std::string>& defines_;
  std::vector<Token> tokens_;
  std::string out_;
  std::vector<std::string> pending_;  // comment lines ("" = blank) before the next line
  std::vector<char> brackets_;
  std::vector<bool> hanging_;  // per open bracket: its line ended right after it
  int depth_ = 0;
  bool unary_ = false;
  bool continuation_ = false;
};

}  // namespace

std::string format_kernel_source(std::string_view source, const std::string& filename,
                                 const std::map<std::string, std::string>& defines) {
  return Formatter(source, defines, frontend::tokenize(source, filename)).run();
}

}  // namespace tilec::ir
