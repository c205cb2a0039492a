#include "parser_syntax.h"

#include <algorithm>
#include <set>

namespace tilec::frontend {

namespace {

// Expression trees taller than this are rejected so later recursive passes stay
// within the stack whatever the input.
constexpr int kMaxExprDepth = 1000;

const std::set<std::string>& keywords() {
  static const std::set<std::string> words = {
      "if",   "else",   "elif",  "for",   "in",       "while",   "def",    "return", "and",
      "or",   "not",    "True",  "False", "None",     "pass",    "import", "from",   "as",
      "with", "lambda", "class", "try",   "except",   "finally", "raise",  "global", "nonlocal",
      "del",  "assert", "yield", "break", "continue", "is",      "async",  "await"};
  return words;
}

class SyntaxParser {
 public:
  SyntaxParser(std::string_view source, const std::string& filename)
      : source_(source), filename_(filename), tokens_(tokenize(source, filename)) {}

  AstModule run() {
    AstModule module;
    while (!at(TokenKind::kEnd)) {
      if (at(TokenKind::kIndent)) fail(peek().span, "unexpected indent");
      if (at(TokenKind::kDedent) || at(TokenKind::kNewline)) {
        ++pos_;
        continue;
      }
      size_t start = pos_;
      try {
        statement(module.body);
      } catch (const SourceError& e) {
        module.body.push_back(opaque_statement(start, e));
      }
    }
    return module;
  }

 private:
  // ---- module-level statements outside the subset ----
  // Kernel files are Python modules: besides kernels they hold test drivers, torch
  // references and argument parsing that tilec never runs. A top-level statement the
  // subset cannot parse is skipped whole (through its indented block) from `start`,
  // remembering the error, the names it binds and whether it defines a kernel.
  AstStmtPtr opaque_statement(size_t start, const SourceError& error) {
    pos_ = start;
    auto s = new_stmt(AstStmtKind::kOpaque, peek().span);
    s->error = std::make_shared<SourceError>(error);
    int depth = 0;
    bool line_start = true, decorator_line = false, after_decorators = false;
    bool own_scope = false;  // a def/class: names bound in its body are its locals
    auto continues = [&] {   // the statement goes on after a line at depth 0
      if (at(TokenKind::kIndent)) return true;
      if (after_decorators) return true;
      return at_word("else") || at_word("elif") || at_word("except") || at_word("finally");
    };
    while (!at(TokenKind::kEnd)) {
      const Token& t = peek();
      if (line_start && depth == 0 && (at_word("def") || at_word("class"))) own_scope = true;
      if (line_start && t.kind == TokenKind::kName && (depth == 0 || !own_scope))
        bound_by_line(*s, pos_, depth);
      if (line_start) decorator_line = at_op("@");
      if (decorator_line && t.kind == TokenKind::kName &&
          (t.text == "prim_func" || t.text == "jit" || t.text == "lazy_jit"))
        s->kernel_like = true;
      if (line_start && depth == 0 && t.kind == TokenKind::kName &&
          (t.text == "def" || t.text == "class") && s->name.empty() &&
          peek(1).kind == TokenKind::kName)
        s->name = peek(1).text;
      line_start = false;
      next();
      if (t.kind == TokenKind::kIndent) {
        ++depth;
        line_start = true;
      } else if (t.kind == TokenKind::kDedent) {
        line_start = true;
        if (--depth <= 0 && !continues()) break;
      } else if (t.kind == TokenKind::kNewline) {
        line_start = true;
        after_decorators = depth == 0 && decorator_line;
        if (depth == 0 && !continues()) break;
      }
    }
    return s;
  }
  // The names a line starting at token `i` binds: `def f`, `class C`, `a, b = ...`,
  // `x: int = ...`, `import m.n as a`, `from m import a, b as c`.
  void bound_by_line(AstStmt& s, size_t i, int depth) {
    auto tok = [&](size_t k) -> const Token& { return tokens_[std::min(k, tokens_.size() - 1)]; };
    auto is = [&](size_t k, std::string_view op) {
      return tok(k).kind == TokenKind::kOp && tok(k).text == op;
    };
    auto add = [&](const std::string& n) {
      if (std::find(s.bound_names.begin(), s.bound_names.end(), n) == s.bound_names.end())
        s.bound_names.push_back(n);
    };
    const Token& first = tok(i);
    if (first.text == "def" || first.text == "class") {
      if (depth == 0 && tok(i + 1).kind == TokenKind::kName) add(tok(i + 1).text);
      return;
    }
    if (first.text == "import" || first.text == "from") {
      size_t k = i + 1;
      bool from = first.text == "from";
      if (from) {
        while (tok(k).kind != TokenKind::kNewline && tok(k).kind != TokenKind::kEnd &&
               !(tok(k).kind == TokenKind::kName && tok(k).text == "import"))
          ++k;
        ++k;
      }
      while (tok(k).kind != TokenKind::kNewline && tok(k).kind != TokenKind::kEnd) {
        if (is(k, "(") || is(k, ")") || is(k, ",")) {
          ++k;
          continue;
        }
        std::string name = tok(k).text;  // first component of a dotted module
        while (is(k + 1, ".")) k += 2;
        if (from) name = tok(k).text;
        ++k;
        if (tok(k).kind == TokenKind::kName && tok(k).text == "as") {
          name = tok(k + 1).text;
          k += 2;
        }
        add(name);
      }
      return;
    }
    // a, b = ... / x: T = ...: names separated by commas, then '=' or ':'
    std::vector<std::string> names;
    size_t k = i;
    while (tok(k).kind == TokenKind::kName && !keywords().count(tok(k).text)) {
      names.push_back(tok(k).text);
      if (!is(k + 1, ",")) break;
      k += 2;
    }
    if (!names.empty() && (is(k + 1, "=") || is(k + 1, ":")))
      for (const auto& n : names) add(n);
  }

  // ---- token access ----
  const Token& peek(int ahead = 0) const {
    size_t i = std::min(pos_ + size_t(ahead), tokens_.size() - 1);
    return tokens_[i];
  }
  bool at(TokenKind kind) const { return peek().kind == kind; }
  bool at_op(std::string_view op, int ahead = 0) const {
    return peek(ahead).kind == TokenKind::kOp && peek(ahead).text == op;
  }
  bool at_word(std::string_view word, int ahead = 0) const {
    return peek(ahead).kind == TokenKind::kName && peek(ahead).text == word;
  }
  const Token& next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::kName:
      case TokenKind::kOp:
      case TokenKind::kInt:
      case TokenKind::kFloat:
        return "'" + t.text + "'";
      case TokenKind::kString:
        return "a string";
      default:
        return to_string(t.kind);
    }
  }
  [[noreturn]] void fail(Span span, std::string message, std::string hint = "") const {
    throw make_source_error(filename_, source_, span, std::move(message), std::move(hint));
  }
  const Token& expect_op(std::string_view op, std::string_view context) {
    if (!at_op(op))
      fail(peek().span, "expected '" + std::string(op) + "' " + std::string(context) + ", found " +
                            describe(peek()));
    return next();
  }
  std::string expect_name(std::string_view context) {
    const Token& t = peek();
    if (t.kind != TokenKind::kName || keywords().count(t.text))
      fail(t.span, "expected a name " + std::string(context) + ", found " + describe(t));
    return next().text;
  }
  void expect_newline() {
    if (at_op(";")) fail(peek().span, "';' is not supported", "write one statement per line");
    if (!at(TokenKind::kNewline) && !at(TokenKind::kEnd))
      fail(peek().span, "unexpected " + describe(peek()) + " at the end of a statement",
           "write one statement per line");
    if (at(TokenKind::kNewline)) next();
  }

  // ---- statements ----
  // `raise [exception [from cause]]`. Factories raise on parameters they do not
  // support; the exception is reported, never evaluated, so its message may be an
  // f-string as in an assert's.
  AstStmtPtr raise_statement() {
    auto s = new_stmt(AstStmtKind::kRaise, next().span);
    if (!at(TokenKind::kNewline) && !at(TokenKind::kEnd)) {
      in_unevaluated_message_ = true;
      s->value = expression();
      if (at_word("from")) {
        next();
        expression();
      }
      in_unevaluated_message_ = false;
    }
    expect_newline();
    return s;
  }

  AstStmtPtr new_stmt(AstStmtKind kind, Span span) {
    auto s = std::make_unique<AstStmt>();
    s->kind = kind;
    s->span = span;
    return s;
  }

  void statement(AstBlock& out) {
    const Token& t = peek();
    Span span = t.span;
    if (t.kind == TokenKind::kName) {
      const std::string& w = t.text;
      if (w == "if") return out.push_back(if_statement());
      if (w == "for") return out.push_back(for_statement());
      if (w == "with") return out.push_back(with_statement());
      if (w == "def") return out.push_back(function_def({}));
      if (w == "while") return out.push_back(while_statement());
      if (w == "class" || w == "try" || w == "async" || w == "lambda" || w == "global" ||
          w == "nonlocal" || w == "del" || w == "yield" || w == "break" || w == "continue" ||
          w == "else" || w == "elif" || w == "except" || w == "finally")
        fail(span, "'" + w + "' is not supported in kernel files",
             "kernel files contain imports, constants and @T.prim_func functions whose bodies "
             "use T.Kernel, loops, if/else, assignments and T.* tile operations");
      if (w == "import" || w == "from") return import_statement(out);
      if (w == "raise") return out.push_back(raise_statement());
      if (w == "assert") {
        auto s = new_stmt(AstStmtKind::kAssert, next().span);
        s->value = expression();
        if (at_op(",")) {
          next();
          // The message is never evaluated (tilec reports its own), so an f-string,
          // the usual way Python formats one, is accepted here and nowhere else.
          in_unevaluated_message_ = true;
          expression();
          in_unevaluated_message_ = false;
        }
        expect_newline();
        return out.push_back(std::move(s));
      }
      if (w == "return") {
        auto s = new_stmt(AstStmtKind::kReturn, next().span);
        if (!at(TokenKind::kNewline) && !at(TokenKind::kEnd)) s->value = expression_list();
        expect_newline();
        return out.push_back(std::move(s));
      }
      if (w == "pass") {
        next();
        expect_newline();
        return out.push_back(new_stmt(AstStmtKind::kPass, span));
      }
    }
    if (at_op("@")) {
      std::vector<AstPtr> decorators;
      while (at_op("@")) {
        next();
        decorators.push_back(expression());
        expect_newline();
      }
      if (!at_word("def"))
        fail(peek().span, "a decorator must be followed by 'def'",
             "decorate a function with @T.prim_func");
      return out.push_back(function_def(std::move(decorators)));
    }
    out.push_back(simple_statement());
  }

  AstStmtPtr simple_statement() {
    Span span = peek().span;
    AstPtr lhs = expression_list();
    static const char* const kAug[] = {
        "+=", "-=", "*=", "/=", "//=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    for (const char* aug : kAug) {
      if (at_op(aug)) {
        next();
        auto s = new_stmt(AstStmtKind::kAugAssign, span);
        s->op = std::string(aug).substr(0, std::string(aug).size() - 1);
        s->target = std::move(lhs);
        s->value = expression_list();
        expect_newline();
        return s;
      }
    }
    if (at_op("**="))
      fail(peek().span, "augmented assignment '" + peek().text + "' is not supported",
           "supported: +=, -=, *=, /=, //=, %=, &=, |=, ^=, <<=, >>=");
    if (at_op(":")) {  // `x: T.int32 = 0`
      next();
      auto s = new_stmt(AstStmtKind::kAnnAssign, span);
      s->target = std::move(lhs);
      s->annotation = expression();
      if (at_op("=")) {
        next();
        s->value = expression_list();
      }
      expect_newline();
      return s;
    }
    if (at_op("=")) {
      next();
      auto s = new_stmt(AstStmtKind::kAssign, span);
      s->target = std::move(lhs);
      s->value = expression_list();
      while (at_op("=")) {  // a = b = value
        next();
        s->more_targets.push_back(std::move(s->value));
        s->value = expression_list();
      }
      expect_newline();
      return s;
    }
    auto s = new_stmt(AstStmtKind::kExpr, span);
    s->value = std::move(lhs);
    expect_newline();
    return s;
  }

  void import_statement(AstBlock& out) {
    Span span = peek().span;
    auto s = new_stmt(AstStmtKind::kImport, span);
    bool from = next().text == "from";
    s->module = dotted_name();
    if (from) {
      if (!at_word("import")) fail(peek().span, "expected 'import' after 'from " + s->module + "'");
      next();
      if (at_op("*")) {  // from tilelang.autotuner import *
        next();
        s->imported = "*";
        expect_newline();
        out.push_back(std::move(s));
        return;
      }
      bool parenthesized = at_op("(");
      if (parenthesized) next();
      while (true) {  // from m import a, b as c: one kImport per name
        auto one = new_stmt(AstStmtKind::kImport, peek().span);
        one->module = s->module;
        one->imported = expect_name("after 'import'");
        if (at_word("as")) {
          next();
          one->alias = expect_name("after 'as'");
        }
        out.push_back(std::move(one));
        if (!at_op(",")) break;
        next();
        if (parenthesized && at_op(")")) break;
      }
      if (parenthesized) expect_op(")", "to close the imported names");
      expect_newline();
      return;
    }
    while (true) {  // import a.b as c, d: one kImport per module
      if (at_word("as")) {
        next();
        s->alias = expect_name("after 'as'");
      }
      out.push_back(std::move(s));
      if (!at_op(",")) break;
      next();
      s = new_stmt(AstStmtKind::kImport, peek().span);
      s->module = dotted_name();
    }
    expect_newline();
  }

  std::string dotted_name() {
    std::string name = expect_name("in import");
    while (at_op(".")) {
      next();
      name += "." + expect_name("in import");
    }
    return name;
  }

  void block(AstBlock& out) {
    BlockDepthGuard guard(*this, peek().span);
    expect_op(":", "to start a block");
    if (!at(TokenKind::kNewline)) {  // `if c: x = 1` on one line
      statement(out);
      return;
    }
    next();
    if (!at(TokenKind::kIndent))
      fail(peek().span, "expected an indented block", "indent the body of the statement");
    next();
    while (!at(TokenKind::kDedent) && !at(TokenKind::kEnd)) {
      if (at(TokenKind::kNewline)) {
        next();
        continue;
      }
      statement(out);
    }
    if (at(TokenKind::kDedent)) next();
  }

  AstStmtPtr if_statement() {
    BlockDepthGuard guard(*this, peek().span);  // elif chains nest
    auto s = new_stmt(AstStmtKind::kIf, next().span);
    s->value = expression();
    block(s->body);
    if (at_word("elif")) {
      s->orelse.push_back(if_statement());
    } else if (at_word("else")) {
      next();
      block(s->orelse);
    }
    return s;
  }

  AstStmtPtr while_statement() {
    auto s = new_stmt(AstStmtKind::kWhile, next().span);
    s->value = expression();
    block(s->body);
    if (at_word("else"))
      fail(peek().span, "'while ... else' is not supported", "put the code after the loop");
    return s;
  }

  AstStmtPtr for_statement() {
    auto s = new_stmt(AstStmtKind::kFor, next().span);
    if (at_op("(")) {  // for (i, j) in T.Parallel(...)
      next();
      s->target = target_list("as loop variables");
      expect_op(")", "to close the loop variables");
    } else {
      s->target = target_list("as loop variables");
    }
    if (!at_word("in"))
      fail(peek().span, "expected 'in' after the loop variables, found " + describe(peek()));
    next();
    s->value = expression();
    block(s->body);
    if (at_word("else"))
      fail(peek().span, "'for ... else' is not supported", "put the code after the loop");
    return s;
  }

  AstStmtPtr with_statement() {
    auto s = new_stmt(AstStmtKind::kWith, next().span);
    with_item(*s);
    return s;
  }

  // One context of a `with` and what follows it: `with A, B: body` is Python's
  // `with A: with B: body`, so a second context becomes a nested with statement.
  void with_item(AstStmt& w) {
    AstStmt* s = &w;
    s->value = expression();
    if (at_word("as")) {
      next();
      if (at_op("(")) {
        next();
        s->target = target_list("as kernel block indices");
        expect_op(")", "to close the block index names");
      } else {
        s->target = target_list("as kernel block indices");
      }
    }
    if (at_op(",")) {
      next();
      auto inner = new_stmt(AstStmtKind::kWith, peek().span);
      with_item(*inner);
      s->body.push_back(std::move(inner));
      return;
    }
    block(s->body);
  }

  // Names separated by commas; a tuple node when there are several.
  AstPtr target_list(std::string_view context) {
    Span span = peek().span;
    auto first = leaf(AstKind::kName, span, expect_name(context));
    if (!at_op(",")) return first;
    auto tuple = leaf(AstKind::kTuple, span, "");
    tuple->children.push_back(std::move(first));
    while (at_op(",")) {
      next();
      if (!at(TokenKind::kName)) break;
      Span s = peek().span;
      tuple->children.push_back(leaf(AstKind::kName, s, expect_name(context)));
    }
    return tuple;
  }

  AstStmtPtr function_def(std::vector<AstPtr> decorators) {
    auto s =
        new_stmt(AstStmtKind::kFunctionDef, decorators.empty() ? peek().span : decorators[0]->span);
    next();  // def
    s->name = expect_name("after 'def'");
    s->decorators = std::move(decorators);
    expect_op("(", "after the function name");
    while (!at_op(")")) {
      if (at_op("/"))
        fail(peek().span, "'/' parameters are not supported",
             "declare each parameter as `name: T.Tensor(shape, dtype)` or `name: T.int32`");
      AstParam param;
      param.span = peek().span;
      // `*args` / `**kwargs`: autotune config helpers take them (kernels refuse them when
      // lowered); a bare `*` (keyword-only marker) changes nothing the evaluator needs.
      if (at_op("*") || at_op("**")) {
        param.star = at_op("**") ? 2 : 1;
        next();
        if (param.star == 1 && (at_op(",") || at_op(")"))) {
          if (at_op(",")) next();
          continue;
        }
      }
      param.name = expect_name("as a parameter");
      if (at_op(":")) {
        next();
        param.annotation = expression();
      }
      if (at_op("=")) {
        next();
        param.default_value = expression();
      }
      s->params.push_back(std::move(param));
      if (!at_op(",")) break;
      next();
    }
    expect_op(")", "to close the parameter list");
    if (at_op("->")) {
      next();
      expression();  // the return annotation carries no meaning for a prim_func
    }
    block(s->body);
    return s;
  }

  struct BlockDepthGuard {
    SyntaxParser& p;
    BlockDepthGuard(SyntaxParser& parser, Span span) : p(parser) {
      if (++p.block_depth_ > kMaxNesting)
        p.fail(span, "blocks nested too deeply (limit " + std::to_string(kMaxNesting) + ")",
               "split the kernel into flatter code");
    }
    ~BlockDepthGuard() { --p.block_depth_; }
  };

  // ---- expressions ----
  struct DepthGuard {
    SyntaxParser& p;
    explicit DepthGuard(SyntaxParser& parser, Span span) : p(parser) {
      if (++p.depth_ > kMaxNesting)
        p.fail(span, "expression nested too deeply (limit " + std::to_string(kMaxNesting) + ")",
               "split it into named intermediate values");
    }
    ~DepthGuard() { --p.depth_; }
  };

  AstPtr leaf(AstKind kind, Span span, std::string name) {
    auto e = std::make_unique<AstExpr>();
    e->kind = kind;
    e->span = span;
    e->name = std::move(name);
    return e;
  }
  // Records a new child and enforces the height bound.
  void adopt(AstExpr& parent, AstPtr child) {
    parent.depth = std::max(parent.depth, child->depth + 1);
    if (parent.depth > kMaxExprDepth)
      fail(parent.span,
           "expression too large (more than " + std::to_string(kMaxExprDepth) +
               " nested operations)",
           "split it into named intermediate values");
    parent.children.push_back(std::move(child));
  }
  AstPtr node(AstKind kind, Span span, std::string name, std::vector<AstPtr> children) {
    auto e = leaf(kind, span, std::move(name));
    for (auto& c : children) adopt(*e, std::move(c));
    return e;
  }

  // expr (',' expr)*: a tuple when there is a comma.
  AstPtr expression_list() {
    Span span = peek().span;
    AstPtr first = expression();
    if (!at_op(",")) return first;
    auto tuple = leaf(AstKind::kTuple, span, "");
    adopt(*tuple, std::move(first));
    while (at_op(",")) {
      next();
      if (at(TokenKind::kNewline) || at_op("=") || at_op(")") || at(TokenKind::kEnd)) break;
      adopt(*tuple, expression());
    }
    return tuple;
  }

  AstPtr expression() {
    DepthGuard guard(*this, peek().span);
    if (at_word("lambda")) return lambda();
    AstPtr body = or_test();
    if (!at_word("if")) return body;
    Span span = next().span;
    AstPtr test = or_test();
    if (!at_word("else")) fail(peek().span, "expected 'else' in a conditional expression");
    next();
    AstPtr orelse = expression();
    std::vector<AstPtr> parts;
    parts.push_back(std::move(body));
    parts.push_back(std::move(test));
    parts.push_back(std::move(orelse));
    return node(AstKind::kIfExp, span, "", std::move(parts));
  }

  // lambda a, b: body (layout functions in T.Fragment/T.Layout hints; lowering rejects
  // it anywhere else).
  AstPtr lambda() {
    auto e = leaf(AstKind::kLambda, next().span, "lambda");
    while (!at_op(":")) {
      if (at_op("*")) next();  // lambda *args: args
      e->ops.push_back(expect_name("as a lambda parameter"));
      if (!at_op(",")) break;
      next();
    }
    expect_op(":", "after the lambda parameters");
    adopt(*e, expression());
    return e;
  }

  AstPtr bool_chain(const char* word, AstPtr (SyntaxParser::*operand)()) {
    Span span = peek().span;
    AstPtr first = (this->*operand)();
    if (!at_word(word)) return first;
    std::vector<AstPtr> parts;
    parts.push_back(std::move(first));
    while (at_word(word)) {
      next();
      parts.push_back((this->*operand)());
    }
    return node(AstKind::kBoolOp, span, word, std::move(parts));
  }
  AstPtr or_test() { return bool_chain("or", &SyntaxParser::and_test); }
  AstPtr and_test() { return bool_chain("and", &SyntaxParser::not_test); }
  AstPtr not_test() {
    if (!at_word("not")) return comparison();
    DepthGuard guard(*this, peek().span);
    Span span = next().span;
    std::vector<AstPtr> parts;
    parts.push_back(not_test());
    return node(AstKind::kUnary, span, "not", std::move(parts));
  }

  AstPtr comparison() {
    Span span = peek().span;
    AstPtr first = bit_or();
    auto is_cmp = [&] {
      return at_op("<") || at_op(">") || at_op("==") || at_op("!=") || at_op("<=") || at_op(">=");
    };
    if (at_word("in") || (at_word("not") && at_word("in", 1))) {
      // `x in (a, b)` / `x not in [...]`: membership in a constant tuple, list, dict or
      // string, evaluated by the constant evaluator.
      auto e = leaf(AstKind::kCompare, span, "");
      adopt(*e, std::move(first));
      bool negated = at_word("not");
      if (negated) next();
      next();
      e->ops.push_back(negated ? "not in" : "in");
      adopt(*e, bit_or());
      return e;
    }
    if (at_word("is")) {  // `x is None` / `x is not None`, for factory parameters
      auto e = leaf(AstKind::kCompare, span, "");
      adopt(*e, std::move(first));
      next();
      bool negated = at_word("not");
      if (negated) next();
      e->ops.push_back(negated ? "is not" : "is");
      adopt(*e, bit_or());
      return e;
    }
    if (!is_cmp()) return first;
    auto e = leaf(AstKind::kCompare, span, "");
    adopt(*e, std::move(first));
    while (is_cmp()) {
      e->ops.push_back(next().text);
      adopt(*e, bit_or());
    }
    return e;
  }

  void reject_bitwise() {
    if (at_op("@"))
      fail(peek().span, "operator '@' is not supported",
           "write a matrix product as T.gemm(A, B, C) on tiles");
  }

  // Python's binary-operator levels below comparisons: | above ^ above & above << >>.
  AstPtr binary_level(const std::vector<const char*>& ops, AstPtr (SyntaxParser::*operand)()) {
    AstPtr lhs = (this->*operand)();
    auto at_any = [&] {
      for (const char* op : ops)
        if (at_op(op)) return true;
      return false;
    };
    while (at_any()) {
      Span op_span = peek().span;
      std::string op = next().text;
      std::vector<AstPtr> parts;
      parts.push_back(std::move(lhs));
      parts.push_back((this->*operand)());
      lhs = node(AstKind::kBinary, op_span, op, std::move(parts));
    }
    return lhs;
  }
  AstPtr bit_or() { return binary_level({"|"}, &SyntaxParser::bit_xor); }
  AstPtr bit_xor() { return binary_level({"^"}, &SyntaxParser::bit_and); }
  AstPtr bit_and() { return binary_level({"&"}, &SyntaxParser::shift); }
  AstPtr shift() { return binary_level({"<<", ">>"}, &SyntaxParser::arith); }

  AstPtr arith() {
    Span span = peek().span;
    AstPtr lhs = term();
    while (at_op("+") || at_op("-")) {
      Span op_span = peek().span;
      std::string op = next().text;
      std::vector<AstPtr> parts;
      parts.push_back(std::move(lhs));
      parts.push_back(term());
      lhs = node(AstKind::kBinary, op_span, op, std::move(parts));
    }
    (void)span;
    reject_bitwise();
    return lhs;
  }

  AstPtr term() {
    Span span = peek().span;
    AstPtr lhs = factor();
    while (at_op("*") || at_op("/") || at_op("//") || at_op("%")) {
      Span op_span = peek().span;
      std::string op = next().text;
      std::vector<AstPtr> parts;
      parts.push_back(std::move(lhs));
      parts.push_back(factor());
      lhs = node(AstKind::kBinary, op_span, op, std::move(parts));
    }
    (void)span;
    reject_bitwise();
    return lhs;
  }

  AstPtr factor() {
    if (at_op("-") || at_op("+") || at_op("~")) {
      DepthGuard guard(*this, peek().span);
      Span span = peek().span;
      std::string op = next().text;
      std::vector<AstPtr> parts;
      parts.push_back(factor());
      if (op == "+") return std::move(parts[0]);
      return node(AstKind::kUnary, span, op, std::move(parts));
    }
    reject_bitwise();
    return power();
  }

  AstPtr power() {
    AstPtr base = postfix();
    if (!at_op("**")) return base;
    DepthGuard guard(*this, peek().span);
    Span span = next().span;
    std::vector<AstPtr> parts;
    parts.push_back(std::move(base));
    parts.push_back(factor());
    return node(AstKind::kBinary, span, "**", std::move(parts));
  }

  AstPtr postfix() {
    AstPtr e = atom();
    while (true) {
      if (at_op(".")) {
        Span span = next().span;
        auto attr = leaf(AstKind::kAttribute, e->span, expect_name("after '.'"));
        (void)span;
        attr->depth = e->depth + 1;
        attr->base = std::move(e);
        e = std::move(attr);
      } else if (at_op("(")) {
        auto call = leaf(AstKind::kCall, e->span, "");
        next();
        call_arguments(*call);
        call->depth = std::max(call->depth, e->depth + 1);
        call->base = std::move(e);
        e = std::move(call);
      } else if (at_op("[")) {
        auto sub = leaf(AstKind::kSubscript, peek().span, "");
        next();
        while (!at_op("]")) {
          adopt(*sub, subscript());
          if (!at_op(",")) break;
          next();
        }
        expect_op("]", "to close the subscript");
        sub->depth = std::max(sub->depth, e->depth + 1);
        sub->span = e->span;
        sub->base = std::move(e);
        e = std::move(sub);
      } else {
        break;
      }
      if (e->depth > kMaxExprDepth)
        fail(e->span, "expression too large", "split it into named intermediate values");
    }
    return e;
  }

  void call_arguments(AstExpr& call) {
    while (!at_op(")")) {
      if (at_op("**")) {  // `**mapping`: a keyword named "**" (ast.h)
        Keyword kw;
        kw.span = next().span;
        kw.name = "**";
        kw.value = expression();
        call.depth = std::max(call.depth, kw.value->depth + 1);
        call.keywords.push_back(std::move(kw));
      } else if (at_op("*")) {  // `*iterable`
        if (!call.keywords.empty())
          fail(peek().span, "positional argument follows keyword argument",
               "put positional arguments first");
        adopt(call, starred());
      } else if (peek().kind == TokenKind::kName && at_op("=", 1)) {
        Keyword kw;
        kw.span = peek().span;
        kw.name = next().text;
        next();
        kw.value = expression();
        call.depth = std::max(call.depth, kw.value->depth + 1);
        for (const auto& other : call.keywords)
          if (other.name == kw.name) fail(kw.span, "keyword argument '" + kw.name + "' repeated");
        call.keywords.push_back(std::move(kw));
      } else {
        if (!call.keywords.empty())
          fail(peek().span, "positional argument follows keyword argument",
               "put positional arguments first");
        adopt(call, expression());
      }
      if (!at_op(",")) break;
      next();
    }
    expect_op(")", "to close the call");
  }

  // `*expr` where Python unpacks an iterable (a call's argument, a list/tuple item).
  AstPtr starred() {
    Span span = next().span;  // '*'
    auto star = leaf(AstKind::kStarred, span, "*");
    adopt(*star, expression());
    return star;
  }

  AstPtr subscript() {
    Span span = peek().span;
    AstPtr start;
    if (!at_op(":")) {
      start = expression();
      if (!at_op(":")) return start;
    }
    next();  // ':'
    AstPtr stop;
    if (!at_op(",") && !at_op("]") && !at_op(":")) stop = expression();
    if (at_op(":"))
      fail(peek().span, "slice steps are not supported",
           "write a contiguous slice such as A[i:i + 4]");
    auto slice = leaf(AstKind::kSlice, span, "");
    slice->children.push_back(std::move(start));
    slice->children.push_back(std::move(stop));
    for (const auto& c : slice->children)
      if (c) slice->depth = std::max(slice->depth, c->depth + 1);
    return slice;
  }

  AstPtr atom() {
    const Token& t = peek();
    Span span = t.span;
    switch (t.kind) {
      case TokenKind::kInt:
        return leaf(AstKind::kInt, span, next().text);
      case TokenKind::kFloat:
        return leaf(AstKind::kFloat, span, next().text);
      case TokenKind::kString: {
        if (t.formatted && !in_unevaluated_message_)
          fail(span, "string prefix 'f' (an f-string) is not supported in kernel code",
               "write a plain string literal");
        std::string value = next().text;
        while (at(TokenKind::kString)) value += next().text;  // implicit concatenation
        return leaf(AstKind::kString, span, std::move(value));
      }
      case TokenKind::kName: {
        if (t.text == "True" || t.text == "False") return leaf(AstKind::kBool, span, next().text);
        if (t.text == "None") return leaf(AstKind::kNone, span, next().text);
        if (t.text == "yield" || t.text == "await")
          fail(span, "'" + t.text + "' is not supported in kernel files");
        if (keywords().count(t.text))
          fail(span, "unexpected keyword '" + t.text + "' in an expression");
        return leaf(AstKind::kName, span, next().text);
      }
      case TokenKind::kOp: {
        // `...` (Python's Ellipsis), as in annotations such as Callable[..., Any]: a name
        // no scope binds, so an annotation that is never evaluated parses and a use is
        // "name '...' is not defined".
        if (t.text == "." && peek(1).kind == TokenKind::kOp && peek(1).text == "." &&
            peek(2).kind == TokenKind::kOp && peek(2).text == ".") {
          next(), next(), next();
          return leaf(AstKind::kName, span, "...");
        }
        if (t.text == "(" || t.text == "[") {
          bool list = t.text == "[";
          const char* close = list ? "]" : ")";
          next();
          auto seq = leaf(list ? AstKind::kList : AstKind::kTuple, span, "");
          if (at_op(close)) {
            next();
            return seq;
          }
          AstPtr first = at_op("*") ? starred() : expression();
          if (!list && at_op(")") && first->kind != AstKind::kStarred) {
            next();
            return first;  // parenthesized expression
          }
          if (at_word("for")) {
            if (!list)
              fail(peek().span, "generator expressions are not supported",
                   "write a list comprehension [... for ...]");
            return comprehension(std::move(first), span);
          }
          adopt(*seq, std::move(first));
          while (at_op(",")) {
            next();
            if (at_op(close)) break;
            adopt(*seq, at_op("*") ? starred() : expression());
          }
          expect_op(close, list ? "to close the list" : "to close the tuple");
          return seq;
        }
        if (t.text == "{") return dict_literal();
        fail(span, "unexpected " + describe(t) + " in an expression");
      }
      default:
        fail(span, "expected an expression, found " + describe(t));
    }
  }

  // The rest of `[elt for t in it if c ...]` after elt; iterables and filters are
  // or_tests, as in Python (a bare `x if c else y` would be ambiguous there).
  AstPtr comprehension(AstPtr element, Span span) {
    auto comp = leaf(AstKind::kListComp, span, "");
    adopt(*comp, std::move(element));
    while (at_word("for") || at_word("if")) {
      if (at_word("if")) {
        next();
        adopt(*comp, or_test());
        comp->ops.push_back("if");
        continue;
      }
      next();
      bool paren = at_op("(");
      if (paren) next();
      adopt(*comp, target_list("as comprehension variables"));
      comp->ops.push_back("for");
      if (paren) expect_op(")", "to close the comprehension variables");
      if (!at_word("in"))
        fail(peek().span,
             "expected 'in' after the comprehension variables, found " + describe(peek()));
      next();
      adopt(*comp, or_test());
      comp->ops.push_back("in");
    }
    expect_op("]", "to close the list comprehension");
    return comp;
  }

  // {key: value, ...}: layout maps, annotations and attributes.
  AstPtr dict_literal() {
    auto dict = leaf(AstKind::kDict, next().span, "");
    while (!at_op("}")) {
      adopt(*dict, expression());
      if (!at_op(":"))
        fail(peek().span, "set literals are not supported",
             "a brace holds a dict {key: value}; use a tuple for several values");
      next();
      adopt(*dict, expression());
      if (!at_op(",")) break;
      next();
    }
    expect_op("}", "to close the dict");
    return dict;
  }

  std::string_view source_;
  const std::string& filename_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  int block_depth_ = 0;
  bool in_unevaluated_message_ = false;  // parsing an assert's message or a raise's exception
};

}  // namespace

AstModule parse_syntax(std::string_view source, const std::string& filename) {
  return SyntaxParser(source, filename).run();
}

}  // namespace tilec::frontend
