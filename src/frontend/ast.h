// Syntax tree of a kernel file, as close to Python's `ast` as the DSL subset needs.
// The syntax parser (parser_syntax.h) builds it and rejects Python outside the
// subset; lowering (parser.cc) turns it into tile IR with names resolved.
#pragma once

#include "tilec/ir/expr.h"
#include "tilec/ir/source_error.h"

#include <memory>
#include <string>
#include <vector>

namespace tilec::frontend {

// The front end builds tile IR: its code names the IR's types and factories unqualified.
using namespace ::tilec::ir;

enum class AstKind {
  kName,
  kInt,
  kFloat,
  kString,
  kBool,
  kNone,
  kAttribute,  // base.name
  kCall,       // base(children..., keywords...)
  kSubscript,  // base[children...]
  kSlice,      // children[0]:children[1] (either may be null)
  kTuple,
  kList,
  kBinary,   // children[0] op children[1]; op in `name`
  kUnary,    // op children[0]
  kCompare,  // children[0] ops[0] children[1] ops[1] ...
  kBoolOp,   // children joined by `name` ("and" / "or")
  kIfExp,    // children: body, test, orelse
  kDict,     // {k0: v0, k1: v1}: children alternate keys and values
  kLambda,   // lambda ops...: children[0] (parameter names in `ops`; layout hints only)
  // [elt for t in it if c ...]: children[0] is elt; each later child is described by
  // ops[i - 1]: "for" (a loop target: a name or a tuple of names), "in" (its iterable)
  // or "if" (a filter). Evaluated only in autotune configs (tilec/frontend/autotune.h).
  kListComp,
  // `*children[0]`: an unpacked positional argument of a call or an item of a list/tuple
  // display; `**value` is a Keyword named "**". Evaluated only in autotune configs.
  kStarred,
};

struct AstExpr;
using AstPtr = std::unique_ptr<AstExpr>;

struct Keyword {
  std::string name;
  AstPtr value;
  Span span;
};

struct AstExpr {
  AstKind kind;
  Span span;
  std::string name;  // identifier, attribute, operator, literal spelling or string value
  AstPtr base;
  std::vector<AstPtr> children;
  std::vector<Keyword> keywords;
  std::vector<std::string> ops;
  int depth = 1;  // height of this subtree, bounded by the syntax parser
};

enum class AstStmtKind {
  kExpr,
  kAssign,
  kAugAssign,
  kFor,
  kWhile,  // `while value: body`
  kIf,
  kWith,
  kPass,
  kFunctionDef,
  kImport,
  kReturn,     // `return [value]`: only in factories (functions returning a kernel)
  kAnnAssign,  // `target: annotation [= value]`
  kAssert,     // `assert value[, message]`: only in factories and helpers
  kRaise,      // `raise [exception]` (value may be null): only in factories and helpers
  // A module-level statement outside the kernel subset (test drivers, torch
  // references, argparse, classes, comprehensions...). It is skipped, not run; the
  // names it binds carry `error`, raised if kernel code uses them or --entry picks it.
  kOpaque,
};

struct AstParam {
  std::string name;
  int star = 0;          // 1: `*name` (extra positional arguments), 2: `**name` (keywords)
  AstPtr annotation;     // may be null
  AstPtr default_value;  // `name=default` (factory parameters); may be null
  Span span;
};

struct AstStmt;
using AstStmtPtr = std::unique_ptr<AstStmt>;
using AstBlock = std::vector<AstStmtPtr>;

struct AstStmt {
  AstStmtKind kind;
  Span span;
  AstPtr target;      // assign / aug-assign target, for target, with-as target (may be null)
  AstPtr value;       // assigned value, for iterable, if condition, with context, expression
  std::string op;     // aug-assign operator without '=' ("+", "//", ...)
  AstPtr annotation;  // kAnnAssign
  std::vector<AstPtr> more_targets;  // kAssign: `a = b = value` (target a, then b)
  AstBlock body, orelse;
  // kFunctionDef
  std::string name;
  std::vector<AstParam> params;
  std::vector<AstPtr> decorators;
  // kImport: `import module [as alias]` or `from module import name [as alias]`
  std::string module, imported, alias;
  // kOpaque: why the statement is outside the subset (the syntax error, with its
  // location), the names it binds, and whether it looks like a kernel or factory
  // (a def whose decorators name prim_func/jit) that therefore cannot be skipped.
  std::shared_ptr<const SourceError> error;
  std::vector<std::string> bound_names;
  bool kernel_like = false;
};

struct AstModule {
  AstBlock body;
};

}  // namespace tilec::frontend
