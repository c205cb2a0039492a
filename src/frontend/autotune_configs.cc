// find_autotune_spec: locates @autotune / AutoTuner.from_kernel and evaluates its configs
// with a small Python evaluator (values: None, bool, int, float, str, list, dict,
// functions). It never runs anything else of the file: statements it cannot evaluate
// bind their names to an error raised only when configs use them.
#include "tilec/frontend/autotune.h"

#include "parser_syntax.h"

#include <cmath>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

namespace tilec::ir {
namespace {

using namespace frontend;

struct Scope;

struct DictEntry;

struct Value {
  enum Kind { kNone, kBool, kInt, kFloat, kStr, kList, kDict, kFunc, kModule, kBuiltin, kError };
  Kind kind = kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;  // string value, module or builtin name, error message
  std::vector<Value> items;
  std::vector<DictEntry> dict;

  // Defined after DictEntry, which must be complete where a vector of it is copied or
  // destroyed (clang checks this at the class's inline members).
  Value();
  Value(const Value&);
  Value(Value&&) noexcept;
  Value& operator=(const Value&);
  Value& operator=(Value&&) noexcept;
  ~Value();
  const AstStmt* func = nullptr;
  std::shared_ptr<Scope> closure;
  std::shared_ptr<Value> self;  // the receiver of a bound builtin method
  Span span;                    // where an error value was made

  static Value integer(int64_t v) {
    Value r;
    r.kind = kInt;
    r.i = v;
    return r;
  }
  static Value boolean(bool v) {
    Value r;
    r.kind = kBool;
    r.b = v;
    return r;
  }
  static Value real(double v) {
    Value r;
    r.kind = kFloat;
    r.f = v;
    return r;
  }
  static Value str(std::string v) {
    Value r;
    r.kind = kStr;
    r.s = std::move(v);
    return r;
  }
  static Value list(std::vector<Value> v) {
    Value r;
    r.kind = kList;
    r.items = std::move(v);
    return r;
  }
  static Value named(Kind kind, std::string name) {
    Value r;
    r.kind = kind;
    r.s = std::move(name);
    return r;
  }
};

bool operator==(const Value& a, const Value& b);

struct DictEntry {
  Value key;
  Value value;
  friend bool operator==(const DictEntry& a, const DictEntry& b) {
    return a.key == b.key && a.value == b.value;
  }
};

Value::Value() = default;
Value::Value(const Value&) = default;
Value::Value(Value&&) noexcept = default;
Value& Value::operator=(const Value&) = default;
Value& Value::operator=(Value&&) noexcept = default;
Value::~Value() = default;

struct Scope {
  std::shared_ptr<Scope> parent;
  std::map<std::string, Value> names;
  const Value* find(const std::string& name) const {
    for (const Scope* s = this; s; s = s->parent.get()) {
      auto it = s->names.find(name);
      if (it != s->names.end()) return &it->second;
    }
    return nullptr;
  }
  Value* find_mutable(const std::string& name) {
    for (Scope* s = this; s; s = s->parent.get()) {
      auto it = s->names.find(name);
      if (it != s->names.end()) return &it->second;
    }
    return nullptr;
  }
};
using ScopePtr = std::shared_ptr<Scope>;

bool operator==(const Value& a, const Value& b) {
  bool an = a.kind == Value::kInt || a.kind == Value::kFloat || a.kind == Value::kBool;
  bool bn = b.kind == Value::kInt || b.kind == Value::kFloat || b.kind == Value::kBool;
  if (an && bn) {
    double x = a.kind == Value::kFloat ? a.f : a.kind == Value::kBool ? a.b : double(a.i);
    double y = b.kind == Value::kFloat ? b.f : b.kind == Value::kBool ? b.b : double(b.i);
    return x == y;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::kNone:
      return true;
    case Value::kStr:
      return a.s == b.s;
    case Value::kList:
      return a.items == b.items;
    case Value::kDict:
      return a.dict == b.dict;
    default:
      return a.func == b.func && a.s == b.s;
  }
}

const char* kind_name(Value::Kind kind) {
  static const char* names[] = {"None", "bool",     "int",    "float",   "str",  "list",
                                "dict", "function", "module", "builtin", "error"};
  return names[kind];
}

// Thrown for a statement or expression the evaluator cannot run.
struct Unsupported {
  Span span;
  std::string message;
};

class ConfigEvaluator {
 public:
  ConfigEvaluator(std::string_view source, const ParseOptions& options)
      : source_(source), options_(options) {}
  // A function value keeps the scope it was defined in, which may hold the function
  // itself (a cycle of shared_ptrs): every scope is made here and emptied at the end.
  ~ConfigEvaluator() {
    for (auto& scope : scopes_) scope->names.clear();
  }
  ConfigEvaluator(const ConfigEvaluator&) = delete;
  ConfigEvaluator& operator=(const ConfigEvaluator&) = delete;

  ScopePtr new_scope(ScopePtr parent) {
    scopes_.push_back(std::make_shared<Scope>(Scope{std::move(parent), {}}));
    return scopes_.back();
  }

  [[noreturn]] void fail(Span span, std::string message, std::string hint = "") const {
    throw make_source_error(options_.filename, source_, span, std::move(message), std::move(hint));
  }

  // Binds a block's names in order; a statement that fails binds an error value.
  void bind_block(const AstBlock& body, const ScopePtr& scope) {
    for (const auto& st : body) {
      try {
        bind_statement(*st, scope);
      } catch (const Unsupported& why) {
        Value error = Value::named(Value::kError, why.message);
        error.span = why.span;
        for (const std::string& name : bound_names(*st)) scope->names[name] = error;
      }
    }
  }

  Value eval(const AstExpr& e, const ScopePtr& scope) {
    if (++depth_ > 200) unsupported(e.span, "configs nest too deeply");
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    switch (e.kind) {
      case AstKind::kInt:
        return Value::integer(std::stoll(e.name, nullptr, 0));
      case AstKind::kFloat:
        return Value::real(std::stod(e.name));
      case AstKind::kString:
        return Value::str(e.name);
      case AstKind::kBool:
        return Value::boolean(e.name == "True");
      case AstKind::kNone:
        return Value();
      case AstKind::kName:
        return lookup(e, scope);
      case AstKind::kTuple:
      case AstKind::kList: {
        Value r = Value::list({});
        for (const auto& c : e.children) {
          if (c->kind == AstKind::kStarred) {  // [*a, *b]
            for (Value& item : iterate(eval(*c->children[0], scope), c->span).items)
              r.items.push_back(std::move(item));
          } else {
            r.items.push_back(eval(*c, scope));
          }
        }
        return r;
      }
      case AstKind::kDict: {
        Value r;
        r.kind = Value::kDict;
        for (size_t k = 0; k + 1 < e.children.size(); k += 2)
          r.dict.push_back(DictEntry{eval(*e.children[k], scope), eval(*e.children[k + 1], scope)});
        return r;
      }
      case AstKind::kAttribute:
        return attribute(e, scope);
      case AstKind::kCall:
        return call(e, scope);
      case AstKind::kSubscript:
        return subscript(e, scope);
      case AstKind::kBinary:
        return binary(e, eval(*e.children[0], scope), eval(*e.children[1], scope));
      case AstKind::kUnary: {
        Value v = eval(*e.children[0], scope);
        if (e.name == "not") return Value::boolean(!truth(v, e.span));
        if (e.name == "-" && v.kind == Value::kInt) return Value::integer(-v.i);
        if (e.name == "-" && v.kind == Value::kFloat) return Value::real(-v.f);
        if (e.name == "+" && (v.kind == Value::kInt || v.kind == Value::kFloat)) return v;
        unsupported(e.span, "unary '" + e.name + "' of a " + kind_name(v.kind));
      }
      case AstKind::kCompare:
        return compare(e, scope);
      case AstKind::kBoolOp: {
        Value v;
        for (const auto& c : e.children) {
          v = eval(*c, scope);
          bool t = truth(v, c->span);
          if (e.name == "and" ? !t : t) return v;
        }
        return v;
      }
      case AstKind::kIfExp:
        return truth(eval(*e.children[1], scope), e.children[1]->span)
                   ? eval(*e.children[0], scope)
                   : eval(*e.children[2], scope);
      case AstKind::kListComp: {
        Value out = Value::list({});
        comprehension(e, 1, new_scope(scope), out);
        return out;
      }
      default:
        unsupported(e.span, "this expression is not evaluated in autotune configs");
    }
  }

  Value call_function(const Value& f, std::vector<Value> args,
                      std::vector<std::pair<std::string, Value>> kwargs, Span span) {
    if (f.kind == Value::kBuiltin) return builtin(f, std::move(args), std::move(kwargs), span);
    if (f.kind != Value::kFunc)
      unsupported(span, std::string("a ") + kind_name(f.kind) + " is not callable");
    if (++calls_ > 64) unsupported(span, "configs call functions too deeply");
    const AstStmt& def = *f.func;
    auto scope = new_scope(f.closure);
    std::set<std::string> bound;  // keywords taken by a named parameter
    size_t positional = 0;        // positional arguments taken
    for (size_t k = 0; k < def.params.size(); ++k) {
      const AstParam& p = def.params[k];
      if (p.star == 1) {  // *args: the positional arguments no parameter took
        Value rest = Value::list({});
        for (; positional < args.size(); ++positional) rest.items.push_back(args[positional]);
        scope->names[p.name] = std::move(rest);
        continue;
      }
      if (p.star == 2) {  // **kwargs: the keywords no parameter took
        Value rest;
        rest.kind = Value::kDict;
        for (auto& [name, value] : kwargs)
          if (!bound.count(name)) rest.dict.push_back(DictEntry{Value::str(name), value});
        scope->names[p.name] = std::move(rest);
        bound.clear();
        for (auto& [name, value] : kwargs) bound.insert(name);
        continue;
      }
      Value v;
      bool found = false;
      bool after_star = false;  // a parameter after *args takes keywords only
      for (size_t j = 0; j < k; ++j) after_star = after_star || def.params[j].star == 1;
      if (!after_star && positional < args.size() && positional == k) {
        v = args[positional++], found = true;
      } else {
        for (auto& [name, value] : kwargs)
          if (name == p.name) v = value, found = true, bound.insert(name);
      }
      if (!found && p.default_value) v = eval(*p.default_value, f.closure), found = true;
      if (!found)
        unsupported(span, "'" + def.name + "' is called without parameter '" + p.name + "'");
      scope->names[p.name] = std::move(v);
    }
    bool takes_rest = false;
    for (const auto& p : def.params) takes_rest = takes_rest || p.star == 1;
    if (!takes_rest && positional < args.size())
      unsupported(span, "'" + def.name + "' takes " + std::to_string(positional) +
                            " positional argument(s) but " + std::to_string(args.size()) +
                            " were given");
    std::optional<Value> result = run_block(def.body, scope);
    --calls_;
    return result ? *result : Value();
  }

  std::string to_define(const Value& v, Span span) {
    switch (v.kind) {
      case Value::kInt:
        return std::to_string(v.i);
      case Value::kBool:
        return v.b ? "True" : "False";
      case Value::kFloat: {
        std::ostringstream text;
        text.precision(17);
        text << v.f;
        std::string s = text.str();
        if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
        return s;
      }
      case Value::kStr:
        return v.s;
      default:
        fail(span, std::string("a config value is a ") + kind_name(v.kind),
             "config values are numbers, True/False or strings (dtypes)");
    }
  }

  // Turns Unsupported into a located SourceError.
  template <class F>
  auto located(Span where, F&& body) -> decltype(body()) {
    try {
      return body();
    } catch (const Unsupported& why) {
      fail(why.span.known() ? why.span : where,
           "cannot evaluate the autotune configs: " + why.message,
           "tilec evaluates configs written as lists of dicts, comprehensions, "
           "itertools.product and simple functions returning them");
    }
  }

  std::set<std::string> parameter_names;  // the -D names the evaluation used

 private:
  [[noreturn]] static void unsupported(Span span, std::string message) {
    throw Unsupported{span, std::move(message)};
  }

  static std::vector<std::string> bound_names(const AstStmt& st) {
    std::vector<std::string> names;
    auto add = [&](const AstExpr* t) {
      if (!t) return;
      if (t->kind == AstKind::kName) names.push_back(t->name);
      if (t->kind == AstKind::kTuple || t->kind == AstKind::kList)
        for (const auto& c : t->children)
          if (c->kind == AstKind::kName) names.push_back(c->name);
    };
    if (st.kind == AstStmtKind::kAssign || st.kind == AstStmtKind::kAnnAssign) {
      add(st.target.get());
      for (const auto& t : st.more_targets) add(t.get());
    }
    if (st.kind == AstStmtKind::kFunctionDef) names.push_back(st.name);
    if (st.kind == AstStmtKind::kOpaque)
      names.insert(names.end(), st.bound_names.begin(), st.bound_names.end());
    return names;
  }

  void bind_statement(const AstStmt& st, const ScopePtr& scope) {
    switch (st.kind) {
      case AstStmtKind::kFunctionDef: {
        Value f;
        f.kind = Value::kFunc;
        f.func = &st;
        f.closure = scope;
        f.s = st.name;
        scope->names[st.name] = f;
        return;
      }
      case AstStmtKind::kImport:
        import(st, scope);
        return;
      case AstStmtKind::kAssign:
      case AstStmtKind::kAnnAssign:
        if (st.value) assign(st, scope);
        return;
      case AstStmtKind::kIf:
        // Constant conditions only; an undecidable one binds nothing of either branch.
        bind_block(truth(eval(*st.value, scope), st.value->span) ? st.body : st.orelse, scope);
        return;
      case AstStmtKind::kOpaque: {
        Value error = Value::named(Value::kError, st.error ? st.error->message() : "not evaluated");
        error.span = st.span;
        for (const std::string& name : st.bound_names) scope->names[name] = error;
        return;
      }
      default:
        return;
    }
  }

  void import(const AstStmt& st, const ScopePtr& scope) {
    std::string full = st.imported.empty() ? st.module : st.module + "." + st.imported;
    std::string name = !st.alias.empty()      ? st.alias
                       : !st.imported.empty() ? st.imported
                                              : st.module.substr(0, st.module.find('.'));
    if (st.imported.empty() && st.alias.empty()) full = name;
    if (full == "itertools.product")
      scope->names[name] = Value::named(Value::kBuiltin, "product");
    else
      scope->names[name] = Value::named(Value::kModule, full);
  }

  void assign_to(const AstExpr& target, const Value& v, const ScopePtr& scope) {
    if (target.kind == AstKind::kName) {
      scope->names[target.name] = v;
      return;
    }
    if ((target.kind == AstKind::kTuple || target.kind == AstKind::kList) &&
        v.kind == Value::kList && v.items.size() == target.children.size()) {
      for (size_t k = 0; k < v.items.size(); ++k) assign_to(*target.children[k], v.items[k], scope);
      return;
    }
    unsupported(target.span, "cannot assign to this target");
  }

  void assign(const AstStmt& st, const ScopePtr& scope) {
    Value v = eval(*st.value, scope);
    assign_to(*st.target, v, scope);
    for (const auto& t : st.more_targets) assign_to(*t, v, scope);
  }

  // Runs a function body; the returned value, or nullopt when it ends without return.
  std::optional<Value> run_block(const AstBlock& body, const ScopePtr& scope) {
    for (const auto& st : body) {
      switch (st->kind) {
        case AstStmtKind::kReturn:
          return st->value ? eval(*st->value, scope) : Value();
        case AstStmtKind::kIf:
          if (auto r = run_block(
                  truth(eval(*st->value, scope), st->value->span) ? st->body : st->orelse, scope))
            return r;
          break;
        case AstStmtKind::kFor: {
          Value it = iterate(eval(*st->value, scope), st->value->span);
          for (const Value& item : it.items) {
            assign_to(*st->target, item, scope);
            if (auto r = run_block(st->body, scope)) return r;
          }
          break;
        }
        case AstStmtKind::kWhile: {
          // A configs loop that never ends would hang `tilec tune`: it stops with an error.
          constexpr int kMaxIterations = 1 << 20;
          int iterations = 0;
          while (truth(eval(*st->value, scope), st->value->span)) {
            if (++iterations > kMaxIterations)
              unsupported(st->span, "this while loop ran " + std::to_string(kMaxIterations) +
                                        " iterations without ending");
            if (auto r = run_block(st->body, scope)) return r;
          }
          break;
        }
        case AstStmtKind::kAugAssign: {
          Value* target =
              st->target->kind == AstKind::kName ? scope->find_mutable(st->target->name) : nullptr;
          if (!target) unsupported(st->span, "augmented assignment to an unknown name");
          AstExpr op;
          op.kind = AstKind::kBinary;
          op.name = st->op;
          op.span = st->span;
          Value r = binary(op, *target, eval(*st->value, scope));
          scope->names[st->target->name] = r;
          break;
        }
        case AstStmtKind::kExpr: {
          const AstExpr& e = *st->value;
          if (e.kind == AstKind::kString) break;
          // `configs.append(x)`: the one mutation configs code needs.
          if (e.kind == AstKind::kCall && e.base->kind == AstKind::kAttribute &&
              e.base->name == "append" && e.base->base->kind == AstKind::kName &&
              e.children.size() == 1) {
            Value* list = scope->find_mutable(e.base->base->name);
            if (!list || list->kind != Value::kList)
              unsupported(e.span, "append to something that is not a list");
            Value item = eval(*e.children[0], scope);
            scope->find_mutable(e.base->base->name)->items.push_back(std::move(item));
            break;
          }
          eval(e, scope);
          break;
        }
        case AstStmtKind::kAssert:
        case AstStmtKind::kPass:
          break;
        case AstStmtKind::kRaise:
          unsupported(st->span, "the configs code raises an exception");
        default:
          bind_statement(*st, scope);
      }
    }
    return std::nullopt;
  }

  Value lookup(const AstExpr& e, const ScopePtr& scope) {
    if (const Value* v = scope->find(e.name)) {
      if (v->kind == Value::kError)
        unsupported(e.span, "'" + e.name + "' cannot be evaluated (" + v->s + ")");
      return *v;
    }
    static const std::set<std::string> builtins = {"range", "list", "tuple",  "dict",     "zip",
                                                   "len",   "int",  "float",  "str",      "bool",
                                                   "min",   "max",  "sorted", "enumerate"};
    if (builtins.count(e.name)) return Value::named(Value::kBuiltin, e.name);
    unsupported(e.span, "name '" + e.name + "' is not defined");
  }

  Value attribute(const AstExpr& e, const ScopePtr& scope) {
    Value base = eval(*e.base, scope);
    if (base.kind == Value::kModule && base.s == "itertools" && e.name == "product")
      return Value::named(Value::kBuiltin, "product");
    if (base.kind == Value::kDict &&
        (e.name == "keys" || e.name == "values" || e.name == "items")) {
      Value m = Value::named(Value::kBuiltin, "dict." + e.name);
      m.self = std::make_shared<Value>(std::move(base));
      return m;
    }
    unsupported(e.span, "attribute '." + e.name + "' of a " + kind_name(base.kind));
  }

  Value call(const AstExpr& e, const ScopePtr& scope) {
    Value f = eval(*e.base, scope);
    std::vector<Value> args;
    for (const auto& c : e.children) {
      if (c->kind == AstKind::kStarred) {  // f(*iterable)
        for (Value& item : iterate(eval(*c->children[0], scope), c->span).items)
          args.push_back(std::move(item));
      } else {
        args.push_back(eval(*c, scope));
      }
    }
    std::vector<std::pair<std::string, Value>> kwargs;
    auto add_keyword = [&](std::string name, Value value, Span span) {
      for (const auto& [other, v] : kwargs)
        if (other == name) unsupported(span, "keyword argument '" + name + "' repeated");
      kwargs.emplace_back(std::move(name), std::move(value));
    };
    for (const auto& kw : e.keywords) {
      Value v = eval(*kw.value, scope);
      if (kw.name != "**") {
        add_keyword(kw.name, std::move(v), kw.span);
        continue;
      }
      // f(**mapping): each entry a keyword argument, its key a name.
      if (v.kind != Value::kDict)
        unsupported(kw.span, std::string("'**' needs a dict, not a ") + kind_name(v.kind));
      for (auto& [key, value] : v.dict) {
        if (key.kind != Value::kStr) unsupported(kw.span, "'**' needs a dict with string keys");
        add_keyword(key.s, value, kw.span);
      }
    }
    return call_function(f, std::move(args), std::move(kwargs), e.span);
  }

  Value iterate(const Value& v, Span span) {
    if (v.kind == Value::kList) return v;
    if (v.kind == Value::kDict) {
      Value keys = Value::list({});
      for (const auto& [k, value] : v.dict) keys.items.push_back(k);
      return keys;
    }
    if (v.kind == Value::kStr) {
      Value chars = Value::list({});
      for (char c : v.s) chars.items.push_back(Value::str(std::string(1, c)));
      return chars;
    }
    unsupported(span, std::string("a ") + kind_name(v.kind) + " is not iterable");
  }

  static int64_t as_int(const Value& v, Span span) {
    if (v.kind == Value::kInt) return v.i;
    if (v.kind == Value::kBool) return v.b;
    unsupported(span, std::string("expected an int, got a ") + kind_name(v.kind));
  }

  Value builtin(const Value& f, std::vector<Value> args,
                std::vector<std::pair<std::string, Value>> kwargs, Span span) {
    const std::string& name = f.s;
    if (name == "range") {
      int64_t start = 0, stop = 0, step = 1;
      if (args.size() == 1) stop = as_int(args[0], span);
      if (args.size() >= 2) start = as_int(args[0], span), stop = as_int(args[1], span);
      if (args.size() == 3) step = as_int(args[2], span);
      if (args.empty() || args.size() > 3 || step == 0) unsupported(span, "bad range(...)");
      Value r = Value::list({});
      for (int64_t k = start; step > 0 ? k < stop : k > stop; k += step) {
        if (r.items.size() > 100000) unsupported(span, "range too long for configs");
        r.items.push_back(Value::integer(k));
      }
      return r;
    }
    if (name == "list" || name == "tuple" || name == "sorted")
      return args.empty() ? Value::list({}) : iterate(args[0], span);
    if (name == "len") {
      if (args.size() != 1) unsupported(span, "len takes one argument");
      return Value::integer(args[0].kind == Value::kDict
                                ? int64_t(args[0].dict.size())
                                : int64_t(iterate(args[0], span).items.size()));
    }
    if (name == "zip") {
      std::vector<Value> lists;
      size_t n = SIZE_MAX;
      for (auto& a : args)
        lists.push_back(iterate(a, span)), n = std::min(n, lists.back().items.size());
      Value r = Value::list({});
      for (size_t k = 0; k < (lists.empty() ? 0 : n); ++k) {
        Value row = Value::list({});
        for (auto& l : lists) row.items.push_back(l.items[k]);
        r.items.push_back(std::move(row));
      }
      return r;
    }
    if (name == "enumerate") {
      Value r = Value::list({});
      if (args.size() != 1) unsupported(span, "enumerate takes one argument");
      Value items = iterate(args[0], span);
      for (size_t k = 0; k < items.items.size(); ++k)
        r.items.push_back(Value::list({Value::integer(int64_t(k)), items.items[k]}));
      return r;
    }
    if (name == "product") {
      int64_t repeat = 1;
      for (auto& [k, v] : kwargs)
        if (k == "repeat") repeat = as_int(v, span);
      std::vector<Value> pools;
      for (int64_t r = 0; r < repeat; ++r)
        for (auto& a : args) pools.push_back(iterate(a, span));
      Value result = Value::list({Value::list({})});
      for (const Value& pool : pools) {
        Value next = Value::list({});
        for (const Value& prefix : result.items)
          for (const Value& item : pool.items) {
            Value row = prefix;
            row.items.push_back(item);
            next.items.push_back(std::move(row));
            if (next.items.size() > 100000) unsupported(span, "too many configs");
          }
        result = std::move(next);
      }
      return result;
    }
    if (name == "dict") {
      Value d;
      d.kind = Value::kDict;
      if (!args.empty()) {
        if (args[0].kind == Value::kDict) {
          d = args[0];
        } else {
          for (const Value& pair : iterate(args[0], span).items) {
            if (pair.kind != Value::kList || pair.items.size() != 2)
              unsupported(span, "dict(...) of something that is not pairs");
            d.dict.push_back(DictEntry{pair.items[0], pair.items[1]});
          }
        }
      }
      // A keyword replaces an entry of the same key, as dict(base, key=v) does.
      for (auto& [k, v] : kwargs) {
        bool replaced = false;
        for (auto& entry : d.dict)
          if (entry.key.kind == Value::kStr && entry.key.s == k) entry.value = v, replaced = true;
        if (!replaced) d.dict.push_back(DictEntry{Value::str(k), v});
      }
      return d;
    }
    if (name == "dict.keys" || name == "dict.values" || name == "dict.items") {
      Value r = Value::list({});
      for (const auto& [k, v] : f.self->dict)
        r.items.push_back(name == "dict.keys"     ? k
                          : name == "dict.values" ? v
                                                  : Value::list({k, v}));
      return r;
    }
    if ((name == "min" || name == "max") && !args.empty()) {
      std::vector<Value> items = args.size() == 1 ? iterate(args[0], span).items : args;
      if (items.empty()) unsupported(span, name + "() of an empty list");
      Value best = items[0];
      for (const Value& v : items) {
        double x = v.kind == Value::kFloat ? v.f : double(as_int(v, span));
        double y = best.kind == Value::kFloat ? best.f : double(as_int(best, span));
        if (name == "min" ? x < y : x > y) best = v;
      }
      return best;
    }
    if (name == "int" && args.size() == 1) {
      if (args[0].kind == Value::kFloat) return Value::integer(int64_t(args[0].f));
      if (args[0].kind == Value::kStr) return Value::integer(std::stoll(args[0].s));
      return Value::integer(as_int(args[0], span));
    }
    if (name == "float" && args.size() == 1) {
      if (args[0].kind == Value::kFloat) return args[0];
      return Value::real(double(as_int(args[0], span)));
    }
    if (name == "bool" && args.size() == 1) return Value::boolean(truth(args[0], span));
    if (name == "str" && args.size() == 1) return Value::str(to_define(args[0], span));
    unsupported(span, "builtin '" + name + "' with these arguments is not evaluated");
  }

  Value subscript(const AstExpr& e, const ScopePtr& scope) {
    Value base = eval(*e.base, scope);
    if (e.children.size() != 1 || e.children[0]->kind == AstKind::kSlice)
      unsupported(e.span, "only single-index subscripts are evaluated in configs");
    Value index = eval(*e.children[0], scope);
    if (base.kind == Value::kDict) {
      for (const auto& [k, v] : base.dict)
        if (k == index) return v;
      unsupported(e.span, "key not in the dict");
    }
    if (base.kind == Value::kList) {
      int64_t k = as_int(index, e.span);
      if (k < 0) k += int64_t(base.items.size());
      if (k < 0 || k >= int64_t(base.items.size())) unsupported(e.span, "index out of range");
      return base.items[size_t(k)];
    }
    unsupported(e.span, std::string("cannot index a ") + kind_name(base.kind));
  }

  static bool truth(const Value& v, Span span) {
    switch (v.kind) {
      case Value::kNone:
        return false;
      case Value::kBool:
        return v.b;
      case Value::kInt:
        return v.i != 0;
      case Value::kFloat:
        return v.f != 0;
      case Value::kStr:
        return !v.s.empty();
      case Value::kList:
        return !v.items.empty();
      case Value::kDict:
        return !v.dict.empty();
      case Value::kError:
        unsupported(span, v.s);
      default:
        return true;
    }
  }

  Value binary(const AstExpr& e, const Value& a, const Value& b) {
    const std::string& op = e.name;
    bool ints = (a.kind == Value::kInt || a.kind == Value::kBool) &&
                (b.kind == Value::kInt || b.kind == Value::kBool);
    bool nums = (ints || a.kind == Value::kFloat || b.kind == Value::kFloat) &&
                a.kind != Value::kStr && b.kind != Value::kStr && a.kind != Value::kList &&
                b.kind != Value::kList && a.kind != Value::kNone && b.kind != Value::kNone;
    if (ints) {
      int64_t x = as_int(a, e.span), y = as_int(b, e.span);
      if (op == "+") return Value::integer(x + y);
      if (op == "-") return Value::integer(x - y);
      if (op == "*") return Value::integer(x * y);
      if ((op == "//" || op == "%") && y == 0) unsupported(e.span, "division by zero");
      if (op == "//") return Value::integer(x / y - ((x % y != 0) && ((x < 0) != (y < 0))));
      if (op == "%") return Value::integer(((x % y) + y) % y);
      if (op == "/") {
        if (y == 0) unsupported(e.span, "division by zero");
        return Value::real(double(x) / double(y));
      }
      if (op == "**" && y >= 0) {
        int64_t r = 1;
        for (int64_t k = 0; k < y; ++k) r *= x;
        return Value::integer(r);
      }
      if (op == "<<") return Value::integer(x << y);
      if (op == ">>") return Value::integer(x >> y);
      if (op == "&") return Value::integer(x & y);
      if (op == "|") return Value::integer(x | y);
    }
    if (nums) {
      double x = a.kind == Value::kFloat ? a.f : double(as_int(a, e.span));
      double y = b.kind == Value::kFloat ? b.f : double(as_int(b, e.span));
      if (op == "+") return Value::real(x + y);
      if (op == "-") return Value::real(x - y);
      if (op == "*") return Value::real(x * y);
      if (op == "/") return Value::real(x / y);
      if (op == "**") return Value::real(std::pow(x, y));
    }
    if (op == "+" && a.kind == b.kind && a.kind == Value::kStr) return Value::str(a.s + b.s);
    if (op == "+" && a.kind == b.kind && a.kind == Value::kList) {
      Value r = a;
      r.items.insert(r.items.end(), b.items.begin(), b.items.end());
      return r;
    }
    if (op == "*" && a.kind == Value::kList && ints == false && b.kind == Value::kInt) {
      Value r = Value::list({});
      for (int64_t k = 0; k < b.i; ++k)
        r.items.insert(r.items.end(), a.items.begin(), a.items.end());
      return r;
    }
    unsupported(e.span, "'" + op + "' of a " + kind_name(a.kind) + " and a " + kind_name(b.kind));
  }

  Value compare(const AstExpr& e, const ScopePtr& scope) {
    Value left = eval(*e.children[0], scope);
    for (size_t k = 0; k < e.ops.size(); ++k) {
      Value right = eval(*e.children[k + 1], scope);
      const std::string& op = e.ops[k];
      bool r;
      if (op == "==" || op == "is") {
        r = left == right;
      } else if (op == "!=" || op == "is not") {
        r = !(left == right);
      } else if (op == "in" || op == "not in") {
        bool found = false;
        if (right.kind == Value::kStr && left.kind == Value::kStr)
          found = right.s.find(left.s) != std::string::npos;
        else
          for (const Value& v : iterate(right, e.span).items) found = found || v == left;
        r = op == "in" ? found : !found;
      } else {
        double x = left.kind == Value::kFloat ? left.f : double(as_int(left, e.span));
        double y = right.kind == Value::kFloat ? right.f : double(as_int(right, e.span));
        r = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : x >= y;
      }
      if (!r) return Value::boolean(false);
      left = std::move(right);
    }
    return Value::boolean(true);
  }

  // Runs the clauses from child `k` on; appends the element when all have passed.
  void comprehension(const AstExpr& e, size_t k, const ScopePtr& scope, Value& out) {
    if (k >= e.children.size()) {
      out.items.push_back(eval(*e.children[0], scope));
      if (out.items.size() > 100000) unsupported(e.span, "too many configs");
      return;
    }
    const std::string& what = e.ops[k - 1];
    if (what == "if") {
      if (truth(eval(*e.children[k], scope), e.children[k]->span))
        comprehension(e, k + 1, scope, out);
      return;
    }
    // "for" target, then "in" iterable
    Value items = iterate(eval(*e.children[k + 1], scope), e.children[k + 1]->span);
    for (const Value& item : items.items) {
      assign_to(*e.children[k], item, scope);
      comprehension(e, k + 2, scope, out);
    }
  }

  std::string_view source_;
  std::vector<ScopePtr> scopes_;
  const ParseOptions& options_;
  int depth_ = 0;
  int calls_ = 0;
};

bool is_named(const AstExpr& e, const char* name) {
  if (e.kind == AstKind::kName) return e.name == name;
  if (e.kind == AstKind::kAttribute) return e.name == name;
  return false;
}

struct Site {
  const AstExpr* configs = nullptr;
  const AstExpr* warmup = nullptr;
  const AstExpr* rep = nullptr;
  std::string function;
  const AstStmt* def = nullptr;  // the decorated function (its parameters feed configs)
};

// `AutoTuner.from_kernel(kernel=k, configs=...)` with its chained calls, in `e`.
bool find_from_kernel(const AstExpr& e, Site& site) {
  const AstExpr* at = &e;
  while (at->kind == AstKind::kCall && at->base->kind == AstKind::kAttribute &&
         at->base->name != "from_kernel") {
    for (const auto& kw : at->keywords) {
      if (kw.name == "warmup") site.warmup = kw.value.get();
      if (kw.name == "rep") site.rep = kw.value.get();
    }
    at = at->base->base.get();
  }
  if (at->kind != AstKind::kCall || at->base->kind != AstKind::kAttribute ||
      at->base->name != "from_kernel")
    return false;
  for (const auto& kw : at->keywords) {
    if (kw.name == "configs") site.configs = kw.value.get();
    if (kw.name == "kernel" && kw.value->kind == AstKind::kName) site.function = kw.value->name;
  }
  if (site.configs && site.function.empty() && !at->children.empty() &&
      at->children[0]->kind == AstKind::kName)
    site.function = at->children[0]->name;
  return site.configs != nullptr;
}

// warmup=/rep= of `name.run(...)` (or any call chained on `name`) in `e`.
void chained_run_arguments(const AstExpr& e, const std::string& name, Site& site) {
  const AstExpr* at = &e;
  std::vector<const AstExpr*> calls;
  while (at->kind == AstKind::kCall && at->base->kind == AstKind::kAttribute) {
    calls.push_back(at);
    at = at->base->base.get();
  }
  if (at->kind != AstKind::kName || at->name != name) return;
  for (const AstExpr* call : calls)
    for (const auto& kw : call->keywords) {
      if (kw.name == "warmup") site.warmup = kw.value.get();
      if (kw.name == "rep") site.rep = kw.value.get();
    }
}

class SpecFinder {
 public:
  SpecFinder(ConfigEvaluator& eval, const ParseOptions& options) : eval_(eval), options_(options) {}

  // Walks a function (or the module) body in its scope; true when a site was found.
  bool walk(const AstBlock& body, const ScopePtr& scope, std::optional<AutotuneSpec>& spec) {
    for (const auto& st : body) {
      if (st->kind == AstStmtKind::kFunctionDef) {
        if (walk_decorated(*st, scope, spec)) return true;
        if (walk_function(*st, scope, spec)) return true;
        continue;
      }
      Site site;
      if (st->value && find_from_kernel(*st->value, site)) {
        // `tuner = AutoTuner.from_kernel(...)` then `tuner.run(warmup=, rep=)` later on.
        if (st->kind == AstStmtKind::kAssign && st->target->kind == AstKind::kName)
          for (const auto& later : body)
            if (later->value) chained_run_arguments(*later->value, st->target->name, site);
        return finish(site, scope, spec);
      }
      if (st->kind == AstStmtKind::kIf) {
        // Both branches may hold the site (a `tune` flag chooses at run time).
        if (walk(st->body, scope, spec) || walk(st->orelse, scope, spec)) return true;
      }
    }
    return false;
  }

  // An @autotune(configs=...) decorator on `def`; true when there is one.
  bool walk_decorated(const AstStmt& def, const ScopePtr& scope,
                      std::optional<AutotuneSpec>& spec) {
    for (const auto& d : def.decorators) {
      if (d->kind != AstKind::kCall || !is_named(*d->base, "autotune")) continue;
      Site site;
      site.function = def.name;
      site.def = &def;
      for (const auto& kw : d->keywords) {
        if (kw.name == "configs") site.configs = kw.value.get();
        if (kw.name == "warmup") site.warmup = kw.value.get();
        if (kw.name == "rep") site.rep = kw.value.get();
      }
      if (site.configs) return finish(site, scope, spec);
    }
    return false;
  }

  // Binds a function's parameters (-D, else defaults) and walks its body.
  bool walk_function(const AstStmt& def, const ScopePtr& outer, std::optional<AutotuneSpec>& spec) {
    auto scope = eval_.new_scope(outer);
    bind_parameters(def, scope);
    eval_.bind_block(def.body, scope);
    return walk(def.body, scope, spec);
  }

 private:
  void bind_parameters(const AstStmt& def, const ScopePtr& scope) {
    for (const auto& p : def.params) {
      if (!p.star) bound_parameters_.insert(p.name);
      if (p.star) {  // *args / **kwargs of a decorated function: none given
        Value empty = Value::list({});
        if (p.star == 2) empty.kind = Value::kDict;
        scope->names[p.name] = std::move(empty);
        continue;
      }
      auto define = options_.defines.find(p.name);
      Value v;
      if (define != options_.defines.end()) {
        v = parse_define_value(define->second);
      } else if (p.default_value) {
        try {
          v = eval_.eval(*p.default_value, scope->parent);
        } catch (const Unsupported& why) {
          v = Value::named(Value::kError, why.message);
        }
      } else {
        v = Value::named(Value::kError, "parameter '" + p.name + "' of '" + def.name +
                                            "' has no value; pass -D " + p.name + "=VALUE");
      }
      scope->names[p.name] = v;
    }
  }

  static Value parse_define_value(const std::string& text) {
    if (text == "True" || text == "False") return Value::boolean(text == "True");
    if (text == "None") return Value();
    char* end = nullptr;
    long long i = std::strtoll(text.c_str(), &end, 0);
    if (!text.empty() && *end == '\0') return Value::integer(i);
    double f = std::strtod(text.c_str(), &end);
    if (!text.empty() && *end == '\0') return Value::real(f);
    return Value::str(text);
  }

  bool finish(const Site& site, const ScopePtr& scope, std::optional<AutotuneSpec>& spec) {
    AutotuneSpec out;
    out.function = site.function;
    out.line = site.configs->span.line;
    Value configs = eval_.located(site.configs->span, [&] {
      Value v = eval_.eval(*site.configs, scope);
      if (v.kind == Value::kFunc) {
        // TileLang calls a configs function with the tuned function's arguments.
        std::vector<std::pair<std::string, Value>> kwargs;
        if (site.def) {
          auto params = eval_.new_scope(scope);
          bind_parameters(*site.def, params);
          for (const auto& p : v.func->params)
            if (const Value* given = params->find(p.name);
                !p.star && given && given->kind != Value::kError)
              kwargs.emplace_back(p.name, *given);
        }
        v = eval_.call_function(v, {}, std::move(kwargs), site.configs->span);
      }
      return v;
    });
    if (configs.kind != Value::kList)
      eval_.fail(site.configs->span,
                 std::string("autotune configs must be a list of dicts, not a ") +
                     kind_name(configs.kind));
    for (const Value& config : configs.items) {
      if (config.kind != Value::kDict)
        eval_.fail(
            site.configs->span,
            std::string("an autotune config is a ") + kind_name(config.kind) + ", not a dict",
            "write each config as {\"block_M\": 64, ...}");
      std::map<std::string, std::string> defines;
      for (const auto& [key, value] : config.dict) {
        if (key.kind != Value::kStr)
          eval_.fail(site.configs->span, "autotune config keys must be parameter names (strings)");
        defines[key.s] = eval_.to_define(value, site.configs->span);
      }
      out.configs.push_back(std::move(defines));
    }
    auto integer = [&](const AstExpr* e) {
      if (!e) return 0;
      Value v = eval_.located(e->span, [&] { return eval_.eval(*e, scope); });
      return v.kind == Value::kInt ? int(v.i) : 0;
    };
    out.warmup = integer(site.warmup);
    out.rep = integer(site.rep);
    // The problem sizes: integer parameters in scope (the enclosing functions', the tuned
    // function's) that no config sets.
    std::set<std::string> tuned;
    for (const auto& config : out.configs)
      for (const auto& [name, value] : config) tuned.insert(name);
    auto own = eval_.new_scope(scope);
    if (site.def) bind_parameters(*site.def, own);
    for (const auto& name : bound_parameters_) {
      const Value* v = own->find(name);
      if (v && v->kind == Value::kInt && !tuned.count(name)) out.sizes[name] = v->i;
    }
    spec = std::move(out);
    return true;
  }

  ConfigEvaluator& eval_;
  const ParseOptions& options_;
  std::set<std::string> bound_parameters_;  // every parameter name bound while walking
};

}  // namespace

std::optional<AutotuneSpec> find_autotune_spec(std::string_view source, const ParseOptions& options,
                                               const std::string& entry) {
  AstModule ast = parse_syntax(source, options.filename);
  ConfigEvaluator eval(source, options);
  auto module_scope = eval.new_scope(nullptr);
  eval.bind_block(ast.body, module_scope);
  SpecFinder finder(eval, options);
  std::optional<AutotuneSpec> spec;
  if (entry.empty()) {
    finder.walk(ast.body, module_scope, spec);
    if (!spec) return spec;
    // The module-level statement the site lies in: the last one starting at or before
    // its line (a site inside a function lies before the next top-level statement).
    for (const auto& st : ast.body) {
      if (st->span.line > spec->line) break;
      spec->entry = st->kind == AstStmtKind::kFunctionDef ? st->name : "";
    }
    return spec;
  }
  for (const auto& st : ast.body) {
    if (st->kind != AstStmtKind::kFunctionDef || st->name != entry) continue;
    if (!finder.walk_decorated(*st, module_scope, spec))
      finder.walk_function(*st, module_scope, spec);
    if (spec) spec->entry = entry;
    return spec;
  }
  return spec;
}

std::optional<AutotuneSpec> find_autotune_spec_in_file(
    const std::string& path, const std::map<std::string, std::string>& defines,
    const std::string& entry) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IRError("cannot read kernel file '" + path + "': no such file or not readable");
  std::ostringstream text;
  text << in.rdbuf();
  ParseOptions options;
  options.filename = path;
  options.defines = defines;
  return find_autotune_spec(text.str(), options, entry);
}

}  // namespace tilec::ir
