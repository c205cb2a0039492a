#include "tilec/ir/structural.h"

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
  kTagRegion = 96,
  kTagFunc,
  kTagParam,
  kTagModule,
  kTagAttrs,
};

// Serializes IR into a canonical token stream: variables and buffers become the
// number of their binding (in order of appearance), so alpha-equivalent trees give
// identical streams and anything else a different one.
class Canonicalizer {
 public:
  std::vector<uint64_t> out;

  void expr(const Expr& e) {
    if (!e) return put(kTagNullExpr);
    switch (e.kind()) {
      case ExprKind::kIntImm: {
        auto* n = e.as<IntImmNode>();
        put(kTagIntImm, n->dtype);
        return put(uint64_t(n->value));
      }
      case ExprKind::kFloatImm: {
        auto* n = e.as<FloatImmNode>();
        put(kTagFloatImm, n->dtype);
        return put(std::bit_cast<uint64_t>(n->value));
      }
      case ExprKind::kVar:
        return var_use(e.as<VarNode>());
      case ExprKind::kBinary: {
        auto* n = e.as<BinaryNode>();
        put(kTagBinary, n->dtype);
        put(uint64_t(n->op));
        expr(n->a);
        return expr(n->b);
      }
      case ExprKind::kUnary: {
        auto* n = e.as<UnaryNode>();
        put(kTagUnary, n->dtype);
        put(uint64_t(n->op));
        return expr(n->a);
      }
      case ExprKind::kSelect: {
        auto* n = e.as<SelectNode>();
        put(kTagSelect, n->dtype);
        expr(n->cond);
        expr(n->true_value);
        return expr(n->false_value);
      }
      case ExprKind::kCast: {
        auto* n = e.as<CastNode>();
        put(kTagCast, n->dtype);
        return expr(n->value);
      }
      case ExprKind::kLoad: {
        auto* n = e.as<LoadNode>();
        put(kTagLoad, n->dtype);
        buffer_use(n->buffer);
        return exprs(n->indices);
      }
      case ExprKind::kCall: {
        auto* n = e.as<CallNode>();
        put(kTagCall, n->dtype);
        put(uint64_t(n->call_kind));
        str(n->name);
        return exprs(n->args);
      }
    }
  }

  void stmt(const Stmt& s) {
    if (!s) return put(kTagNullStmt);
    switch (s.kind()) {
      case StmtKind::kStore: {
        auto* n = s.as<StoreNode>();
        put(kTagStore);
        buffer_use(n->buffer);
        exprs(n->indices);
        return expr(n->value);
      }
      case StmtKind::kLet: {
        auto* n = s.as<LetNode>();
        put(kTagLet);
        expr(n->value);
        Scope scope(*this);
        var_def(n->var.get());
        return stmt(n->body);
      }
      case StmtKind::kFor: {
        auto* n = s.as<ForNode>();
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
      case StmtKind::kIf: {
        auto* n = s.as<IfNode>();
        put(kTagIf);
        expr(n->cond);
        stmt(n->then_case);
        return stmt(n->else_case);
      }
      case StmtKind::kSeq: {
        auto* n = s.as<SeqNode>();
        put(kTagSeq);
        put(n->stmts.size());
        for (const auto& c : n->stmts) stmt(c);
        return;
      }
      case StmtKind::kAllocate: {
        auto* n = s.as<AllocateNode>();
        put(kTagAllocate);
        put(n->init.has_value());
        if (n->init) expr(*n->init);
        Scope scope(*this);
        buffer_def(n->buffer);
        return stmt(n->body);
      }
      case StmtKind::kEvaluate:
        put(kTagEvaluate);
        return expr(s.as<EvaluateNode>()->value);
      case StmtKind::kKernel: {
        auto* n = s.as<KernelNode>();
        put(kTagKernel);
        exprs(n->grid);
        ints(n->threads);
        Scope scope(*this);
        put(n->block_vars.size());
        for (const auto& v : n->block_vars) var_def(v.get());
        return stmt(n->body);
      }
      case StmtKind::kCopy: {
        auto* n = s.as<CopyNode>();
        put(kTagCopy);
        region(n->src);
        return region(n->dst);
      }
      case StmtKind::kFill: {
        auto* n = s.as<FillNode>();
        put(kTagFill);
        region(n->dst);
        return expr(n->value);
      }
      case StmtKind::kGemm: {
        auto* n = s.as<GemmNode>();
        put(kTagGemm);
        put(n->transpose_a);
        put(n->transpose_b);
        put(n->clear_accum);
        region(n->a);
        region(n->b);
        return region(n->c);
      }
      case StmtKind::kReduce: {
        auto* n = s.as<ReduceNode>();
        put(kTagReduce);
        put(uint64_t(n->reduce_kind));
        put(uint64_t(int64_t(n->dim)));
        put(n->clear);
        buffer_use(n->src);
        return buffer_use(n->dst);
      }
      case StmtKind::kLaunch: {
        auto* n = s.as<LaunchNode>();
        put(kTagLaunch);
        str(n->callee);
        exprs(n->grid);
        ints(n->threads);
        return exprs(n->args);
      }
    }
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

bool same_expr(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  auto same_list = [](const std::vector<Expr>& x, const std::vector<Expr>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!same_expr(x[i], y[i])) return false;
    return true;
  };
  switch (a.kind()) {
    case ExprKind::kIntImm:
      return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::kFloatImm: {
      double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case ExprKind::kVar:
      return false;  // different nodes: different variables
    case ExprKind::kBinary: {
      auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
      return x->op == y->op && same_expr(x->a, y->a) && same_expr(x->b, y->b);
    }
    case ExprKind::kUnary: {
      auto *x = a.as<UnaryNode>(), *y = b.as<UnaryNode>();
      return x->op == y->op && same_expr(x->a, y->a);
    }
    case ExprKind::kSelect: {
      auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return same_expr(x->cond, y->cond) && same_expr(x->true_value, y->true_value) &&
             same_expr(x->false_value, y->false_value);
    }
    case ExprKind::kCast:
      return same_expr(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::kLoad: {
      auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
      return x->buffer == y->buffer && same_list(x->indices, y->indices);
    }
    case ExprKind::kCall: {
      auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      return x->call_kind == y->call_kind && x->name == y->name && same_list(x->args, y->args);
    }
  }
  return false;
}

}  // namespace tilec::ir
