#include "tilec/ir/printer.h"
#include "tilec/ir/vector_load.h"

#include "tilec/ir/bounds_call.h"
#include "tilec/ir/functor.h"
#include "tilec/ir/gemm_policy.h"
#include "tilec/ir/param_default.h"
#include "tilec/ir/pipeline_schedule.h"
#include "tilec/ir/structural.h"
#include "tilec/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace tilec::ir {

namespace {

// Python operator precedence, loosest first.
enum Prec : int {
  kPrecNone = 0,
  kPrecOr = 2,
  kPrecAnd = 3,
  kPrecNot = 4,
  kPrecCompare = 5,
  kPrecBitOr = 6,
  kPrecBitXor = 7,
  kPrecBitAnd = 8,
  kPrecShift = 9,
  kPrecAdd = 10,
  kPrecMul = 11,
  kPrecUnary = 12,
  kPrecAtom = 14,
};

int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return kPrecAdd;
    case BinaryOp::kMul:
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
      return kPrecMul;
    case BinaryOp::kAnd:
      return kPrecAnd;
    case BinaryOp::kOr:
      return kPrecOr;
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      return kPrecAtom;
    case BinaryOp::kBitOr:
      return kPrecBitOr;
    case BinaryOp::kBitXor:
      return kPrecBitXor;
    case BinaryOp::kBitAnd:
      return kPrecBitAnd;
    case BinaryOp::kShl:
    case BinaryOp::kShr:
      return kPrecShift;
    default:
      return kPrecCompare;
  }
}

bool is_imm(const Expr& e) {
  return e.as<IntImmNode>() || e.as<FloatImmNode>();
}

// Equal constants (or casts of equal constants) of equal dtype.
bool same_const(const Expr& a, const Expr& b) {
  if (!a || !b || a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  if (auto* x = a.as<IntImmNode>()) return x->value == b.as<IntImmNode>()->value;
  if (auto* x = a.as<FloatImmNode>()) {
    double y = b.as<FloatImmNode>()->value;
    return x->value == y || (std::isnan(x->value) && std::isnan(y));
  }
  if (auto* x = a.as<CastNode>()) return same_const(x->value, b.as<CastNode>()->value);
  return false;
}

std::string float_literal(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

struct Candidate {
  std::string text;
  Expr literal;
};

// Bare literal spellings that might re-derive constant `e` in context.
std::vector<Candidate> bare_candidates(const Expr& e) {
  Expr c = e;
  if (auto* cast_node = e.as<CastNode>()) c = cast_node->value;
  std::vector<Candidate> out;
  if (auto* i = c.as<IntImmNode>()) {
    if (c.dtype().is_bool()) {
      out.push_back({i->value ? "True" : "False", make_bool(i->value != 0)});
    } else if (i->value >= INT32_MIN && i->value <= INT32_MAX) {
      out.push_back({std::to_string(i->value), make_int(i->value)});
      out.push_back({float_literal(double(i->value)), make_float(double(i->value))});
    }
  } else if (auto* f = c.as<FloatImmNode>(); f && std::isfinite(f->value)) {
    out.push_back({float_literal(f->value), make_float(f->value)});
    if (f->value == std::trunc(f->value) && std::fabs(f->value) < 2147483648.0)
      out.push_back({std::to_string(int64_t(f->value)), make_int(int64_t(f->value))});
  }
  return out;
}

const std::set<std::string>& reserved_names() {
  static const std::set<std::string> names = {
      "T",     "tilelang", "range",   "max",    "min",    "abs",      "if",   "else",   "elif",
      "for",   "in",       "while",   "def",    "return", "and",      "or",   "not",    "True",
      "False", "None",     "pass",    "import", "from",   "as",       "with", "lambda", "class",
      "try",   "except",   "finally", "raise",  "global", "nonlocal", "del",  "assert", "yield",
      "break", "continue", "is",      "async",  "await",  "float",    "int",  "bool"};
  return names;
}

class Printer : private ExprFunctor<std::pair<std::string, int>()>, private StmtFunctor<void(int)> {
 public:
  std::string take() { return out_.str(); }

  void module(const IRModule& mod) {
    for (const auto& [key, value] : mod.attrs())
      out_ << "# module attr " << key << " = " << attr(value) << "\n";
    // Declared outputs print as the decorator they came from, which needs `tilelang`.
    if (std::any_of(mod.functions().begin(), mod.functions().end(),
                    [](const PrimFunc& f) { return f->attrs.count(kOutputIndicesAttr) > 0; }))
      out_ << "import tilelang\n";
    out_ << "import tilelang.language as T\n";
    push_scope();
    std::vector<Var> symbolic;
    std::unordered_set<const ExprNode*> seen;
    for (const auto& f : mod.functions())
      for (const auto& v : symbolic_shape_vars(f))
        if (seen.insert(v.get()).second) symbolic.push_back(v);
    if (!symbolic.empty()) out_ << "\n";
    for (const auto& v : symbolic)
      out_ << bind(v.get(), v.name()) << " = T.symbolic(\"" << names_[v.get()] << "\")\n";
    for (const auto& f : mod.functions()) {
      out_ << "\n\n";
      function(f);
    }
    pop_scope();
  }

  void function(const PrimFunc& f) {
    function_attrs_ = &f->attrs;
    pipelined_loops_seen_ = 0;
    gemms_seen_ = 0;
    for (const auto& [key, value] : f->attrs) {
      if (key == "global_symbol" && value == AttrValue(f->name)) continue;
      if (key == kOutputIndicesAttr) continue;
      if (is_pipeline_schedule_attr(key)) continue;  // printed on its loop
      if (is_gemm_policy_attr(key)) continue;        // printed on its gemm
      if (is_param_default_attr(key)) continue;      // printed on its parameter
      out_ << "# attr " << key << " = " << attr(value) << "\n";
    }
    if (auto outputs = output_indices(f); !outputs.empty()) {
      out_ << "@tilelang.jit(out_idx=[";
      for (size_t i = 0; i < outputs.size(); ++i) out_ << (i ? ", " : "") << outputs[i];
      out_ << "])\n";
    }
    push_scope();
    out_ << "@T.prim_func\ndef " << f->name << "(";
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Param& p = f->params[i];
      if (i) out_ << ", ";
      if (p.is_buffer()) {
        std::string name = bind(p.buffer.get(), p.buffer->name);
        names_[p.var.get()] = name;
        out_ << name << ": T.Tensor(" << shape(p.buffer->shape) << ", \"" << p.buffer->dtype.str()
             << "\"";
        if (!p.buffer->strides.empty()) out_ << ", strides=" << shape(p.buffer->strides);
        if (p.buffer->read_only) out_ << ", read_only=True";
        out_ << ")";
      } else {
        out_ << bind(p.var.get(), p.var.name()) << ": T." << p.var.dtype().str();
        if (std::optional<AttrValue> d = param_default(*f, p.name())) {
          const auto* i = std::get_if<int64_t>(&*d);
          out_ << " = " << (i && p.var.dtype().is_bool() ? (*i ? "True" : "False") : attr(*d));
        }
      }
    }
    out_ << "):\n";
    block(f->body, 1);
    pop_scope();
  }

  // Statements of one block; Let/Allocate chains are flattened without recursion.
  void block(const Stmt& s, int indent) {
    push_scope();
    std::vector<Stmt> stack{s};
    bool printed = false;
    while (!stack.empty()) {
      Stmt cur = std::move(stack.back());
      stack.pop_back();
      if (!cur) continue;
      if (auto* q = cur.as<SeqNode>()) {
        for (auto it = q->stmts.rbegin(); it != q->stmts.rend(); ++it) stack.push_back(*it);
        continue;
      }
      if (auto* l = cur.as<LetNode>()) {
        std::string value = expr(l->value);
        line(indent) << bind(l->var.get(), l->var.name()) << " = " << value << "\n";
        printed = true;
        stack.push_back(l->body);
        continue;
      }
      if (auto* a = cur.as<AllocateNode>()) {
        allocation(*a, indent);
        printed = true;
        stack.push_back(a->body);
        continue;
      }
      statement(cur, indent);
      printed = true;
    }
    if (!printed) line(indent) << "pass\n";
    pop_scope();
  }

  std::string expr(const Expr& e, int need = kPrecNone) {
    auto [text, prec] = render(e);
    return prec < need ? "(" + text + ")" : text;
  }

 private:
  // ---------------------------------------------------------------- names
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope() {
    for (const auto& n : scopes_.back()) used_.erase(n);
    scopes_.pop_back();
  }
  std::string bind(const void* key, const std::string& want) {
    std::string base;
    for (char c : want) base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v" + base;
    std::string name = base;
    for (int k = 1; used_.count(name) || reserved_names().count(name); ++k)
      name = base + "_" + std::to_string(k);
    used_.insert(name);
    if (!scopes_.empty()) scopes_.back().push_back(name);
    names_[key] = name;
    return name;
  }
  std::string name_of(const void* key, const std::string& fallback) const {
    auto it = names_.find(key);
    return it == names_.end() ? fallback : it->second;
  }

  std::ostream& line(int indent) { return out_ << std::string(size_t(indent) * 4, ' '); }

  static std::string attr(const AttrValue& v) {
    return std::visit(
        [](const auto& x) -> std::string {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, bool>)
            return x ? "True" : "False";
          else if constexpr (std::is_same_v<X, std::string>)
            return "\"" + x + "\"";
          else if constexpr (std::is_same_v<X, double>)
            return float_literal(x);
          else
            return std::to_string(x);
        },
        v);
  }

  std::string shape(const std::vector<Expr>& dims) {
    std::string s = "(";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + expr(dims[i]);
    return s + (dims.size() == 1 ? ",)" : ")");
  }

  // ---------------------------------------------------------------- expressions
  std::pair<std::string, int> render(const Expr& e) {
    if (!e) return {"<undefined>", kPrecAtom};
    return dispatch_expr(e);
  }

  std::pair<std::string, int> visit_expr(const IntImmNode* op, const Expr& e) override {
    int64_t v = op->value;
    if (e.dtype().is_bool()) return {v ? "True" : "False", kPrecAtom};
    if (e.dtype() == DataType::Int32()) return {std::to_string(v), v < 0 ? kPrecUnary : kPrecAtom};
    return {"T." + e.dtype().str() + "(" + std::to_string(v) + ")", kPrecAtom};
  }
  std::pair<std::string, int> visit_expr(const FloatImmNode* op, const Expr& e) override {
    double v = op->value;
    if (std::isinf(v)) {
      std::string inf = "T.infinity(\"" + e.dtype().str() + "\")";
      return v < 0 ? std::pair{"-" + inf, int(kPrecUnary)} : std::pair{inf, int(kPrecAtom)};
    }
    std::string lit = std::isnan(v) ? "float(\"nan\")" : float_literal(v);
    if (e.dtype() == DataType::Float32())
      return {lit, v < 0 || std::signbit(v) ? kPrecUnary : kPrecAtom};
    return {"T." + e.dtype().str() + "(" + lit + ")", kPrecAtom};
  }
  std::pair<std::string, int> visit_expr(const VarNode* v, const Expr&) override {
    return {name_of(v, v->name), kPrecAtom};
  }
  std::pair<std::string, int> visit_expr(const BinaryNode* op, const Expr&) override {
    return binary_text(*op);
  }
  std::pair<std::string, int> visit_expr(const UnaryNode* u, const Expr&) override {
    if (u->op == UnaryOp::kNeg) return {"-" + expr(u->a, kPrecUnary), kPrecUnary};
    return {"not " + expr(u->a, kPrecNot), kPrecNot};
  }
  std::pair<std::string, int> visit_expr(const SelectNode* s, const Expr&) override {
    return {"T.if_then_else(" + expr(s->cond) + ", " + expr(s->true_value) + ", " +
                expr(s->false_value) + ")",
            kPrecAtom};
  }
  std::pair<std::string, int> visit_expr(const CastNode* c, const Expr&) override {
    return {"T.cast(" + expr(c->value) + ", \"" + c->dtype.str() + "\")", kPrecAtom};
  }
  std::pair<std::string, int> visit_expr(const LoadNode* l, const Expr&) override {
    std::string name = name_of(l->buffer.get(), l->buffer->name);
    if (l->buffer->scope == StorageScope::kVar && l->indices.size() == 1 &&
        is_const_int(l->indices[0], 0))
      return {name, kPrecAtom};
    std::string s = name + "[";
    if (!l->dtype.is_scalar() && l->indices.size() == 1) {  // a vector_load
      const Expr& at = l->indices[0];
      return {s + expr(at) + ":" + expr(at + make_int(l->dtype.lanes, at.dtype())) + "]",
              kPrecAtom};
    }
    for (size_t i = 0; i < l->indices.size(); ++i) s += (i ? ", " : "") + expr(l->indices[i]);
    return {s + "]", kPrecAtom};
  }
  std::pair<std::string, int> visit_expr(const CallNode* c, const Expr& e) override {
    // Extern calls and barriers print in TVM's spelling, which the parser reads back.
    if (c->call_kind == CallKind::kBarrier)
      return {"T.tvm_storage_sync(\"" + c->name + "\")", kPrecAtom};
    if (auto bounds = as_bounds_call(e)) {  // lowered IR only; not parsed back
      if (bounds->stop) return {"T.bounds_stop_if_failed()", kPrecAtom};
      std::string s = std::string("T.bounds_violation(\"") +
                      (bounds->access == BoundsAccess::kStore ? "store" : "load") + "\", " +
                      bounds->buffer + ", [";
      for (size_t i = 0; i < bounds->indices.size(); ++i)
        s += (i ? ", " : "") + expr(bounds->indices[i]);
      s += "], [";
      for (size_t i = 0; i < bounds->shape.size(); ++i)
        s += (i ? ", " : "") + expr(bounds->shape[i]);
      return {s + "])", kPrecAtom};
    }
    std::string s = "T." + c->name + "(";  // atomics too: T.atomic_add(A[i], v)
    if (c->call_kind == CallKind::kExtern)
      s = "T.call_extern(\"" + c->dtype.str() + "\", \"" + c->name + "\"" +
          (c->args.empty() ? "" : ", ");
    for (size_t i = 0; i < c->args.size(); ++i) s += (i ? ", " : "") + expr(c->args[i]);
    return {s + ")", kPrecAtom};
  }

  // `x` as operand of `op` next to `other`: a bare literal when parsing it back
  // re-derives exactly x (the literal adopting the other operand's dtype).
  std::string operand(const Expr& x, const Expr& other, BinaryOp op, bool left, int need) {
    if ((is_imm(x) || (x.as<CastNode>() && is_imm(x.as<CastNode>()->value))) && !is_imm(other)) {
      for (const auto& c : bare_candidates(x)) {
        try {
          Expr rebuilt = left ? binary(op, c.literal, other) : binary(op, other, c.literal);
          auto* b = rebuilt.as<BinaryNode>();
          if (b && same_const(left ? b->a : b->b, x)) {
            bool negative = !c.text.empty() && c.text[0] == '-';
            return negative && need > kPrecUnary ? "(" + c.text + ")" : c.text;
          }
        } catch (const IRError&) {
        }
      }
    }
    return expr(x, need);
  }

  std::pair<std::string, int> binary_text(const BinaryNode& b) {
    if (b.op == BinaryOp::kMin || b.op == BinaryOp::kMax) {
      return {std::string("T.") + to_string(b.op) + "(" + operand(b.a, b.b, b.op, true, kPrecNone) +
                  ", " + operand(b.b, b.a, b.op, false, kPrecNone) + ")",
              kPrecAtom};
    }
    // T.ceildiv(a, c) is (a + c - 1) // c.
    if (b.op == BinaryOp::kFloorDiv) {
      auto* sub = b.a.as<BinaryNode>();
      if (sub && sub->op == BinaryOp::kSub && is_const_int(sub->b, 1)) {
        auto* add = sub->a.as<BinaryNode>();
        if (add && add->op == BinaryOp::kAdd && same_expr(add->b, b.b) && add->dtype == b.dtype) {
          return {"T.ceildiv(" + operand(add->a, add->b, BinaryOp::kAdd, true, kPrecNone) + ", " +
                      operand(add->b, add->a, BinaryOp::kAdd, false, kPrecNone) + ")",
                  kPrecAtom};
        }
      }
    }
    int p = precedence(b.op);
    bool chain_sensitive = is_comparison(b.op);
    std::string lhs = operand(b.a, b.b, b.op, true, chain_sensitive ? p + 1 : p);
    std::string rhs = operand(b.b, b.a, b.op, false, p + 1);
    return {lhs + " " + to_string(b.op) + " " + rhs, p};
  }

  // A value converted to dtype `t` by the statement that receives it (store, fill,
  // alloc_var init): the implicit conversion is left implicit.
  std::string converted_value(DataType t, const Expr& v) {
    if (is_imm(v) || (v.as<CastNode>() && is_imm(v.as<CastNode>()->value))) {
      for (const auto& c : bare_candidates(v))
        if (same_const(cast(t, c.literal), v)) return c.text;
      return expr(v);
    }
    if (auto* c = v.as<CastNode>(); c && c->dtype == t) return expr(c->value);
    return expr(v);
  }

  std::string region(const TileRegion& r) {
    std::string name = name_of(r.buffer.get(), r.buffer->name);
    if (r.is_whole()) return name;
    std::string s = name + "[";
    for (size_t i = 0; i < r.dims.size(); ++i) {
      if (i) s += ", ";
      s += expr(r.dims[i].start);
      if (r.dims[i].stop) s += ":" + expr(*r.dims[i].stop);
    }
    return s + "]";
  }

  // ---------------------------------------------------------------- statements
  void allocation(const AllocateNode& a, int indent) {
    const Buffer& b = a.buffer;
    std::string dtype = "\"" + b->dtype.str() + "\"";
    std::string rhs;
    switch (b->scope) {
      case StorageScope::kVar:
        rhs = "T.alloc_var(" + dtype +
              (a.init ? ", init=" + converted_value(b->dtype, *a.init) : "") + ")";
        break;
      case StorageScope::kShared:
        rhs = "T.alloc_shared(" + shape(b->shape) + ", " + dtype + ")";
        break;
      case StorageScope::kFragment:
        rhs = "T.alloc_fragment(" + shape(b->shape) + ", " + dtype + ")";
        break;
      case StorageScope::kLocal:
        rhs = "T.alloc_local(" + shape(b->shape) + ", " + dtype + ")";
        break;
      case StorageScope::kGlobal:
        rhs = "T.alloc_global(" + shape(b->shape) + ", " + dtype + ")";
        break;
    }
    line(indent) << bind(b.get(), b->name) << " = " << rhs << "\n";
  }

  void statement(const Stmt& s, int indent) { dispatch_stmt(s, indent); }

  void visit_stmt(const StoreNode* op, const Stmt&, int indent) override {
    return store_stmt(*op, indent);
  }
  void visit_stmt(const ForNode* op, const Stmt&, int indent) override {
    return for_stmt(*op, indent);
  }
  void visit_stmt(const IfNode* op, const Stmt&, int indent) override {
    return if_stmt(*op, indent);
  }
  void visit_stmt(const WhileNode* op, const Stmt&, int indent) override {
    line(indent) << "while " << expr(op->cond) << ":\n";
    block(op->body, indent + 1);
  }
  void visit_stmt(const EvaluateNode* op, const Stmt&, int indent) override {
    line(indent) << "T.evaluate(" << expr(op->value) << ")\n";
  }
  void visit_stmt(const KernelNode* op, const Stmt&, int indent) override {
    return kernel_stmt(*op, indent);
  }
  void visit_stmt(const CopyNode* c, const Stmt&, int indent) override {
    line(indent) << "T.copy(" << region(c->src) << ", " << region(c->dst) << ")\n";
  }
  void visit_stmt(const FillNode* f, const Stmt&, int indent) override {
    DataType t = f->dst.buffer->dtype;
    if (same_const(f->value, make_zero(t))) {
      line(indent) << "T.clear(" << region(f->dst) << ")\n";
    } else {
      line(indent) << "T.fill(" << region(f->dst) << ", " << converted_value(t, f->value) << ")\n";
    }
  }
  void visit_stmt(const GemmNode* g, const Stmt&, int indent) override {
    line(indent) << "T.gemm(" << region(g->a) << ", " << region(g->b) << ", " << region(g->c)
                 << (g->transpose_a ? ", transpose_A=True" : "")
                 << (g->transpose_b ? ", transpose_B=True" : "") << gemm_policy_arg()
                 << (g->clear_accum ? ", clear_accum=True" : "") << ")\n";
  }
  void visit_stmt(const ReduceNode* r, const Stmt&, int indent) override {
    line(indent) << "T.reduce_" << to_string(r->reduce_kind) << "("
                 << name_of(r->src.get(), r->src->name) << ", "
                 << name_of(r->dst.get(), r->dst->name) << ", dim=" << r->dim
                 << (r->clear ? "" : ", clear=False") << ")\n";
  }
  void visit_stmt(const LaunchNode* l, const Stmt&, int indent) override {
    line(indent) << "T.launch(\"" << l->callee << "\", grid=" << shape(l->grid) << ", threads=(";
    for (size_t i = 0; i < l->threads.size(); ++i) out_ << (i ? ", " : "") << l->threads[i];
    out_ << (l->threads.size() == 1 ? ",)" : ")") << ", args=(";
    for (size_t i = 0; i < l->args.size(); ++i) out_ << (i ? ", " : "") << expr(l->args[i]);
    out_ << (l->args.size() == 1 ? ",)" : ")") << ")\n";
  }
  void visit_stmt(const SeqNode*, const Stmt& s, int indent) override { return block(s, indent); }
  void visit_stmt(const LetNode*, const Stmt& s, int indent) override { return block(s, indent); }
  void visit_stmt(const AllocateNode*, const Stmt& s, int indent) override {
    return block(s, indent);
  }

  void store_stmt(const StoreNode& st, int indent) {
    std::string target = name_of(st.buffer.get(), st.buffer->name);
    bool scalar = st.buffer->scope == StorageScope::kVar && st.indices.size() == 1 &&
                  is_const_int(st.indices[0], 0);
    if (!scalar) {
      target += "[";
      for (size_t i = 0; i < st.indices.size(); ++i)
        target += (i ? ", " : "") + expr(st.indices[i]);
      target += "]";
    }
    // `A[i] op= v` when the value is A[i] op v (converted to A's dtype).
    Expr v = st.value;
    if (auto* c = v.as<CastNode>(); c && c->dtype == st.buffer->dtype) v = c->value;
    if (auto* b = v.as<BinaryNode>()) {
      auto* l = b->a.as<LoadNode>();
      bool arith = b->op == BinaryOp::kAdd || b->op == BinaryOp::kSub || b->op == BinaryOp::kMul ||
                   b->op == BinaryOp::kDiv || b->op == BinaryOp::kFloorDiv ||
                   b->op == BinaryOp::kFloorMod;
      if (arith && l && l->buffer == st.buffer && l->indices.size() == st.indices.size()) {
        bool same = true;
        for (size_t i = 0; i < st.indices.size(); ++i)
          same = same && same_expr(l->indices[i], st.indices[i]);
        if (same) {
          line(indent) << target << " " << to_string(b->op) << "= "
                       << operand(b->b, b->a, b->op, false, kPrecNone) << "\n";
          return;
        }
      }
    }
    line(indent) << target << " = " << converted_value(st.buffer->dtype, st.value) << "\n";
  }

  static bool uses_any(const Expr& e, const std::vector<Var>& vars) {
    bool found = false;
    if (e) {
      post_order_visit(e, [&](const Expr& x) {
        for (const auto& v : vars) found |= v.get() == x.get();
      });
    }
    return found;
  }

  void for_stmt(const ForNode& f, int indent) {
    push_scope();
    std::string head;
    Stmt body = f.body;
    if (f.for_kind == ForKind::kParallel && is_const_int(f.begin, 0) && f.step == 1) {
      std::vector<Var> vars{f.var};
      std::vector<Expr> extents{f.end};
      while (auto* inner = body.as<ForNode>()) {
        if (inner->for_kind != ForKind::kParallel || !is_const_int(inner->begin, 0) ||
            inner->step != 1 || uses_any(inner->end, vars))
          break;
        vars.push_back(inner->var);
        extents.push_back(inner->end);
        body = inner->body;
      }
      std::string names, ext;
      for (size_t i = 0; i < vars.size(); ++i) {
        names += (i ? ", " : "") + bind(vars[i].get(), vars[i].name());
        ext += (i ? ", " : "") + expr(extents[i]);
      }
      head = "for " + names + " in T.Parallel(" + ext + "):";
    } else {
      std::string range_args =
          is_const_int(f.begin, 0) ? expr(f.end) : expr(f.begin) + ", " + expr(f.end);
      std::string iter, comment;
      if (f.step != 1) {
        iter = "range(" + expr(f.begin) + ", " + expr(f.end) + ", " + std::to_string(f.step) + ")";
        if (f.for_kind != ForKind::kSerial) comment = "  # " + std::string(to_string(f.for_kind));
      } else {
        switch (f.for_kind) {
          case ForKind::kSerial:
            iter = "T.serial(" + range_args + ")";
            break;
          case ForKind::kParallel:
            iter = "T.Parallel(" + range_args + ")";
            break;
          case ForKind::kVectorized:
            iter = "T.vectorized(" + range_args + ")";
            break;
          case ForKind::kUnrolled:
            iter = "T.unroll(" + range_args + ")";
            break;
          case ForKind::kPipelined:
            iter = "T.Pipelined(" + range_args +
                   (f.num_stages ? ", num_stages=" + std::to_string(f.num_stages) : std::string()) +
                   pipeline_schedule_args() + ")";
            break;
          case ForKind::kThreadBinding:
            iter = "T.thread_binding(" + range_args + ", thread=\"" + f.thread_tag + "\")";
            break;
        }
      }
      std::string name = bind(f.var.get(), f.var.name());
      head = "for " + name + " in " + iter + ":" + comment;
    }
    line(indent) << head << "\n";
    block(body, indent + 1);
    pop_scope();
  }

  // ", order=[...], ..." of the next T.Pipelined loop of the function being printed
  // (pipeline_schedule.h: loops are counted in the order they are printed, pre-order).
  std::string pipeline_schedule_args() {
    if (!function_attrs_) return "";
    auto it = function_attrs_->find(pipeline_schedule_attr(pipelined_loops_seen_++));
    if (it == function_attrs_->end()) return "";
    const auto* text = std::get_if<std::string>(&it->second);
    return text && !text->empty() ? ", " + *text : "";
  }

  // ", policy=T.GemmWarpPolicy.X" of the next T.gemm of the function being printed
  // (gemm_policy.h: gemms are counted in the order they are printed); none for Square.
  std::string gemm_policy_arg() {
    if (!function_attrs_) return "";
    GemmWarpPolicy p = gemm_warp_policy(*function_attrs_, gemms_seen_++);
    if (p == GemmWarpPolicy::kSquare) return "";
    return std::string(", policy=T.GemmWarpPolicy.") + to_string(p);
  }

  void if_stmt(const IfNode& node, int indent) {
    const IfNode* cur = &node;
    line(indent) << "if " << expr(cur->cond) << ":\n";
    while (true) {
      block(cur->then_case, indent + 1);
      if (!cur->else_case) return;
      if (auto* next = cur->else_case.as<IfNode>()) {
        line(indent) << "elif " << expr(next->cond) << ":\n";
        cur = next;
        continue;
      }
      line(indent) << "else:\n";
      block(cur->else_case, indent + 1);
      return;
    }
  }

  void kernel_stmt(const KernelNode& k, int indent) {
    push_scope();
    std::string grid;
    for (size_t i = 0; i < k.grid.size(); ++i) grid += (i ? ", " : "") + expr(k.grid[i]);
    std::string threads;
    if (k.threads.size() == 1) {
      threads = std::to_string(k.threads[0]);
    } else {
      threads = "(";
      for (size_t i = 0; i < k.threads.size(); ++i)
        threads += (i ? ", " : "") + std::to_string(k.threads[i]);
      threads += ")";
    }
    std::string names;
    for (size_t i = 0; i < k.block_vars.size(); ++i)
      names += (i ? ", " : "") + bind(k.block_vars[i].get(), k.block_vars[i].name());
    if (k.block_vars.size() > 1) names = "(" + names + ")";
    line(indent) << "with T.Kernel(" << grid << ", threads=" << threads << ") as " << names
                 << ":\n";
    block(k.body, indent + 1);
    pop_scope();
  }

  std::ostringstream out_;
  const AttrMap* function_attrs_ = nullptr;  // of the function being printed
  int64_t gemms_seen_ = 0;                   // its T.gemms printed so far
  size_t pipelined_loops_seen_ = 0;          // its T.Pipelined loops printed so far
  std::unordered_map<const void*, std::string> names_;
  std::set<std::string> used_;
  std::vector<std::vector<std::string>> scopes_;
};

}  // namespace

std::string print(const IRModule& module) {
  Printer p;
  p.module(module);
  return p.take();
}

std::string print(const PrimFunc& func) {
  return print(IRModule({func}));
}

std::string print(const Stmt& stmt) {
  Printer p;
  p.block(stmt, 0);
  return p.take();
}

std::string print(const Expr& expr) {
  Printer p;
  return p.expr(expr);
}

}  // namespace tilec::ir
