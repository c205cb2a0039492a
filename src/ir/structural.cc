#include "tilec/ir/structural.h"

#include "tilec/ir/functor.h"
#include "tilec/ir/scoped_bindings.h"

#include <bit>
#include <cmath>
#include <unordered_map>

namespace tilec::ir {
namespace {

// Token tags keep the stream prefix-free: every node starts with its own tag and
// every variable-length list with its length.
enum Tag : uint64_t {
  kTagIntImm = 1,
  kTagFloatImm,
  kTagVarUse,
  kTagFreeVar,
  kTagVarDef,
  kTagBinary,
  kTagUnary,
  kTagSelect,
  kTagCast,
  kTagLoad,
  kTagCall,
  kTagNullExpr,
  kTagBufferUse = 32,
  kTagBufferDef,
  kTagFreeBuffer,
  kTagNullBuffer,
  kTagStore = 64,
  kTagLet,
  kTagFor,
  kTagIf,
  kTagSeq,
  kTagAllocate,
  kTagEvaluate,
  kTagKernel,
  kTagCopy,
  kTagFill,
  kTagGemm,
  kTagReduce,
  kTagLaunch,
  kTagNullStmt,
  kTagWhile,
  kTagRegion = 96,
  kTagFunc,
  kTagParam,
  kTagModule,
  kTagAttrs,
};

// Serializes IR into a canonical token stream: variables and buffers become the
// number of their binding (in order of appearance), so alpha-equivalent trees give
// identical streams and anything else a different one.
class Canonicalizer : private ExprFunctor<void()>, private StmtFunctor<void()> {
 public:
  std::vector<uint64_t> out;

  void expr(const Expr& e) {
    if (!e) return put(kTagNullExpr);
    dispatch_expr(e);
  }

  void visit_expr(const IntImmNode* n, const Expr&) override {
    put(kTagIntImm, n->dtype);
    return put(uint64_t(n->value));
  }
  void visit_expr(const FloatImmNode* n, const Expr&) override {
    put(kTagFloatImm, n->dtype);
    return put(std::bit_cast<uint64_t>(n->value));
  }
  void visit_expr(const VarNode* op, const Expr&) override { return var_use(op); }
  void visit_expr(const BinaryNode* n, const Expr&) override {
    put(kTagBinary, n->dtype);
    put(uint64_t(n->op));
    expr(n->a);
    return expr(n->b);
  }
  void visit_expr(const UnaryNode* n, const Expr&) override {
    put(kTagUnary, n->dtype);
    put(uint64_t(n->op));
    return expr(n->a);
  }
  void visit_expr(const SelectNode* n, const Expr&) override {
    put(kTagSelect, n->dtype);
    expr(n->cond);
    expr(n->true_value);
    return expr(n->false_value);
  }
  void visit_expr(const CastNode* n, const Expr&) override {
    put(kTagCast, n->dtype);
    return expr(n->value);
  }
  void visit_expr(const LoadNode* n, const Expr&) override {
    put(kTagLoad, n->dtype);
    buffer_use(n->buffer);
    return exprs(n->indices);
  }
  void visit_expr(const CallNode* n, const Expr&) override {
    put(kTagCall, n->dtype);
    put(uint64_t(n->call_kind));
    str(n->name);
    return exprs(n->args);
  }

  void stmt(const Stmt& s) {
    if (!s) return put(kTagNullStmt);
    dispatch_stmt(s);
  }

  void visit_stmt(const StoreNode* n, const Stmt&) override {
    put(kTagStore);
    buffer_use(n->buffer);
    exprs(n->indices);
    return expr(n->value);
  }
  void visit_stmt(const LetNode* n, const Stmt&) override {
    put(kTagLet);
    expr(n->value);
    Scope scope(*this);
    var_def(n->var.get());
    return stmt(n->body);
  }
  void visit_stmt(const ForNode* n, const Stmt&) override {
    put(kTagFor);
    put(uint64_t(n->for_kind));
    put(uint64_t(n->step));
    put(uint64_t(n->num_stages));
    str(n->thread_tag);
    expr(n->begin);
    expr(n->end);
    Scope scope(*this);
    var_def(n->var.get());
    return stmt(n->body);
  }
  void visit_stmt(const IfNode* n, const Stmt&) override {
    put(kTagIf);
    expr(n->cond);
    stmt(n->then_case);
    return stmt(n->else_case);
  }
  void visit_stmt(const WhileNode* n, const Stmt&) override {
    put(kTagWhile);
    expr(n->cond);
    return stmt(n->body);
  }
  void visit_stmt(const SeqNode* n, const Stmt&) override {
    put(kTagSeq);
    put(n->stmts.size());
    for (const auto& c : n->stmts) stmt(c);
  }
  void visit_stmt(const AllocateNode* n, const Stmt&) override {
    put(kTagAllocate);
    put(n->init.has_value());
    if (n->init) expr(*n->init);
    Scope scope(*this);
    buffer_def(n->buffer);
    return stmt(n->body);
  }
  void visit_stmt(const EvaluateNode* op, const Stmt&) override {
    put(kTagEvaluate);
    return expr(op->value);
  }
  void visit_stmt(const KernelNode* n, const Stmt&) override {
    put(kTagKernel);
    exprs(n->grid);
    ints(n->threads);
    Scope scope(*this);
    put(n->block_vars.size());
    for (const auto& v : n->block_vars) var_def(v.get());
    return stmt(n->body);
  }
  void visit_stmt(const CopyNode* n, const Stmt&) override {
    put(kTagCopy);
    region(n->src);
    return region(n->dst);
  }
  void visit_stmt(const FillNode* n, const Stmt&) override {
    put(kTagFill);
    region(n->dst);
    return expr(n->value);
  }
  void visit_stmt(const GemmNode* n, const Stmt&) override {
    put(kTagGemm);
    put(n->transpose_a);
    put(n->transpose_b);
    put(n->clear_accum);
    region(n->a);
    region(n->b);
    return region(n->c);
  }
  void visit_stmt(const ReduceNode* n, const Stmt&) override {
    put(kTagReduce);
    put(uint64_t(n->reduce_kind));
    put(uint64_t(int64_t(n->dim)));
    put(n->clear);
    buffer_use(n->src);
    return buffer_use(n->dst);
  }
  void visit_stmt(const LaunchNode* n, const Stmt&) override {
    put(kTagLaunch);
    str(n->callee);
    exprs(n->grid);
    ints(n->threads);
    return exprs(n->args);
  }

  void func(const PrimFunc& f) {
    put(kTagFunc);
    str(f->name);
    attrs(f->attrs);
    Scope scope(*this);
    put(f->params.size());
    for (const auto& p : f->params) {
      put(kTagParam);
      var_def(p.var.get());
      put(p.is_buffer());
      if (p.is_buffer()) buffer_def(p.buffer);
    }
    stmt(f->body);
  }

  void module(const IRModule& m) {
    put(kTagModule);
    attrs(m.attrs());
    put(m.size());
    for (const auto& f : m.functions()) func(f);
  }

 private:
  // Bindings made inside a scope are forgotten when it closes; numbering continues,
  // so it still matches between two trees of the same shape.
  class Scope {
   public:
    explicit Scope(Canonicalizer& c) : vars_(c.vars_), buffers_(c.buffers_) {}

   private:
    ScopedBindings<VarNode, uint64_t>::Mark vars_;
    ScopedBindings<BufferNode, uint64_t>::Mark buffers_;
  };

  template <class Key>
  uint64_t bind(ScopedBindings<Key, uint64_t>& bindings, const Key* key) {
    uint64_t index = next_index_++;
    bindings.bind(key, index);
    return index;
  }

  void put(uint64_t token) { out.push_back(token); }
  void put(uint64_t tag, DataType t) {
    put(tag);
    put(uint64_t(t.code) | uint64_t(t.bits) << 8 | uint64_t(t.lanes) << 16);
  }
  void str(const std::string& s) {
    put(s.size());
    for (size_t i = 0; i < s.size(); i += 8) {
      uint64_t word = 0;
      for (size_t j = 0; j < 8 && i + j < s.size(); ++j)
        word |= uint64_t(uint8_t(s[i + j])) << (8 * j);
      put(word);
    }
  }
  void exprs(const std::vector<Expr>& list) {
    put(list.size());
    for (const auto& e : list) expr(e);
  }
  void ints(const std::vector<int64_t>& list) {
    put(list.size());
    for (auto v : list) put(uint64_t(v));
  }
  void attrs(const AttrMap& map) {
    put(kTagAttrs);
    put(map.size());
    for (const auto& [key, value] : map) {
      str(key);
      put(value.index());
      std::visit(
          [&](const auto& v) {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, std::string>) {
              str(v);
            } else if constexpr (std::is_same_v<V, double>) {
              put(std::bit_cast<uint64_t>(v));
            } else {
              put(uint64_t(v));
            }
          },
          value);
    }
  }

  void var_def(const VarNode* v) {
    put(kTagVarDef, v->dtype);
    put(bind(vars_, v));
  }
  void var_use(const VarNode* v) {
    if (const uint64_t* index = vars_.find(v)) {
      put(kTagVarUse);
      return put(*index);
    }
    // Free variable: bound, for the rest of the traversal, where first seen.
    put(kTagFreeVar, v->dtype);
    uint64_t index = next_index_++;
    vars_.bind_for_good(v, index);
    put(index);
  }
  void buffer_structure(const Buffer& b) {
    put(0, b->dtype);
    put(uint64_t(b->scope));
    put(b->read_only);
    exprs(b->shape);
    exprs(b->strides);
  }
  void buffer_def(const Buffer& b) {
    if (!b) return put(kTagNullBuffer);
    put(kTagBufferDef);
    put(bind(buffers_, b.get()));
    buffer_structure(b);
  }
  void buffer_use(const Buffer& b) {
    if (!b) return put(kTagNullBuffer);
    if (const uint64_t* index = buffers_.find(b.get())) {
      put(kTagBufferUse);
      return put(*index);
    }
    put(kTagFreeBuffer);
    uint64_t index = next_index_++;
    buffers_.bind_for_good(b.get(), index);
    put(index);
    buffer_structure(b);
  }
  void region(const TileRegion& r) {
    put(kTagRegion);
    buffer_use(r.buffer);
    put(r.dims.size());
    for (const auto& d : r.dims) {
      expr(d.start);
      put(d.stop.has_value());
      if (d.stop) expr(*d.stop);
    }
  }

  ScopedBindings<VarNode, uint64_t> vars_;
  ScopedBindings<BufferNode, uint64_t> buffers_;
  uint64_t next_index_ = 0;
};

uint64_t fnv1a(const std::vector<uint64_t>& tokens) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t t : tokens) {
    for (int byte = 0; byte < 8; ++byte) {  // little-endian byte order on every host
      h ^= (t >> (8 * byte)) & 0xff;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

template <class T, class Fn>
std::vector<uint64_t> tokens(const T& x, Fn fn) {
  Canonicalizer c;
  (c.*fn)(x);
  return std::move(c.out);
}

}  // namespace

bool structural_equal(const Expr& a, const Expr& b) {
  return a.same_as(b) || tokens(a, &Canonicalizer::expr) == tokens(b, &Canonicalizer::expr);
}
bool structural_equal(const Stmt& a, const Stmt& b) {
  return a.same_as(b) || tokens(a, &Canonicalizer::stmt) == tokens(b, &Canonicalizer::stmt);
}
bool structural_equal(const PrimFunc& a, const PrimFunc& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return tokens(a, &Canonicalizer::func) == tokens(b, &Canonicalizer::func);
}
bool structural_equal(const IRModule& a, const IRModule& b) {
  return tokens(a, &Canonicalizer::module) == tokens(b, &Canonicalizer::module);
}

uint64_t structural_hash(const Expr& x) {
  return fnv1a(tokens(x, &Canonicalizer::expr));
}
uint64_t structural_hash(const Stmt& x) {
  return fnv1a(tokens(x, &Canonicalizer::stmt));
}
uint64_t structural_hash(const PrimFunc& x) {
  return x ? fnv1a(tokens(x, &Canonicalizer::func)) : fnv1a({kTagFunc});
}
uint64_t structural_hash(const IRModule& x) {
  return fnv1a(tokens(x, &Canonicalizer::module));
}

namespace {

// Compares one expression with another of the same kind and dtype, field by field.
class SameExpr final : public ExprFunctor<bool(const Expr& other)> {
 private:
  static bool same_list(const std::vector<Expr>& x, const std::vector<Expr>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!same_expr(x[i], y[i])) return false;
    return true;
  }
  bool visit_expr(const IntImmNode* x, const Expr&, const Expr& b) override {
    return x->value == b.as<IntImmNode>()->value;
  }
  bool visit_expr(const FloatImmNode* a, const Expr&, const Expr& b) override {
    double x = a->value, y = b.as<FloatImmNode>()->value;
    return x == y || (std::isnan(x) && std::isnan(y));
  }
  bool visit_expr(const VarNode*, const Expr&, const Expr&) override {
    return false;  // different nodes: different variables
  }
  bool visit_expr(const BinaryNode* x, const Expr&, const Expr& b) override {
    auto* y = b.as<BinaryNode>();
    return x->op == y->op && same_expr(x->a, y->a) && same_expr(x->b, y->b);
  }
  bool visit_expr(const UnaryNode* x, const Expr&, const Expr& b) override {
    auto* y = b.as<UnaryNode>();
    return x->op == y->op && same_expr(x->a, y->a);
  }
  bool visit_expr(const SelectNode* x, const Expr&, const Expr& b) override {
    auto* y = b.as<SelectNode>();
    return same_expr(x->cond, y->cond) && same_expr(x->true_value, y->true_value) &&
           same_expr(x->false_value, y->false_value);
  }
  bool visit_expr(const CastNode* x, const Expr&, const Expr& b) override {
    return same_expr(x->value, b.as<CastNode>()->value);
  }
  bool visit_expr(const LoadNode* x, const Expr&, const Expr& b) override {
    auto* y = b.as<LoadNode>();
    return x->buffer == y->buffer && same_list(x->indices, y->indices);
  }
  bool visit_expr(const CallNode* x, const Expr&, const Expr& b) override {
    auto* y = b.as<CallNode>();
    return x->call_kind == y->call_kind && x->name == y->name && same_list(x->args, y->args);
  }
};

}  // namespace

bool same_expr(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  return SameExpr().dispatch_expr(a, b);
}

}  // namespace tilec::ir
