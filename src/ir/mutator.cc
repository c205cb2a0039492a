#include "tilec/ir/mutator.h"
#include "tilec/ir/vector_load.h"

namespace tilec::ir {

ExprMutator::~ExprMutator() = default;

Expr ExprMutator::mutate(const Expr& expr) {
  if (!expr) return expr;
  return dispatch_expr(expr);
}

Expr ExprMutator::visit_expr(const IntImmNode* op, const Expr& self) {
  return mutate_int_imm(op, self);
}
Expr ExprMutator::visit_expr(const FloatImmNode* op, const Expr& self) {
  return mutate_float_imm(op, self);
}
Expr ExprMutator::visit_expr(const VarNode* op, const Expr& self) {
  return mutate_var(op, self);
}
Expr ExprMutator::visit_expr(const BinaryNode* op, const Expr& self) {
  return mutate_binary(op, self);
}
Expr ExprMutator::visit_expr(const UnaryNode* op, const Expr& self) {
  return mutate_unary(op, self);
}
Expr ExprMutator::visit_expr(const SelectNode* op, const Expr& self) {
  return mutate_select(op, self);
}
Expr ExprMutator::visit_expr(const CastNode* op, const Expr& self) {
  return mutate_cast(op, self);
}
Expr ExprMutator::visit_expr(const LoadNode* op, const Expr& self) {
  return mutate_load(op, self);
}
Expr ExprMutator::visit_expr(const CallNode* op, const Expr& self) {
  return mutate_call(op, self);
}

bool ExprMutator::mutate_all(const std::vector<Expr>& in, std::vector<Expr>* out) {
  bool changed = false;
  out->clear();
  out->reserve(in.size());
  for (const auto& e : in) {
    out->push_back(mutate(e));
    changed |= !out->back().same_as(e);
  }
  return changed;
}

Expr ExprMutator::mutate_int_imm(const IntImmNode*, const Expr& self) {
  return self;
}
Expr ExprMutator::mutate_float_imm(const FloatImmNode*, const Expr& self) {
  return self;
}
Expr ExprMutator::mutate_var(const VarNode*, const Expr& self) {
  return self;
}

// Rebuilt nodes go through the typing factories, so a replacement of another
// dtype is promoted or converted exactly as when the expression was first built.
Expr ExprMutator::mutate_binary(const BinaryNode* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return binary(op->op, a, b, op->span);
}
Expr ExprMutator::mutate_unary(const UnaryNode* op, const Expr& self) {
  Expr a = mutate(op->a);
  if (a.same_as(op->a)) return self;
  return unary(op->op, a, op->span);
}
Expr ExprMutator::mutate_select(const SelectNode* op, const Expr& self) {
  Expr c = mutate(op->cond), t = mutate(op->true_value), f = mutate(op->false_value);
  if (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) return self;
  return select(c, t, f, op->span);
}
Expr ExprMutator::mutate_cast(const CastNode* op, const Expr& self) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value)) return self;
  return cast(op->dtype, v, op->span);
}
Expr ExprMutator::mutate_load(const LoadNode* op, const Expr& self) {
  Buffer buffer = mutate_buffer(op->buffer);
  std::vector<Expr> indices;
  bool changed = mutate_all(op->indices, &indices);
  if (!changed && buffer == op->buffer) return self;
  if (!op->dtype.is_scalar()) return vector_load(buffer, indices.at(0), op->dtype.lanes, op->span);
  return load(buffer, std::move(indices), op->span);
}
Expr ExprMutator::mutate_call(const CallNode* op, const Expr& self) {
  std::vector<Expr> args;
  if (!mutate_all(op->args, &args)) return self;
  if (op->call_kind == CallKind::kExtern) {
    // The node as it was, with new arguments: its name was checked when it was made
    // (the bounds calls of ir/bounds_call.h have names no T.call_extern may take).
    auto node = std::make_shared<CallNode>(*op);
    node->args = std::move(args);
    return Expr(std::move(node));
  }
  if (op->call_kind == CallKind::kAtomic)
    return atomic_update(op->name, std::move(args[0]), std::move(args[1]), op->span);
  // A barrier has no arguments, so only intrinsics get here.
  return call(op->name, std::move(args), op->span);
}
Buffer ExprMutator::mutate_buffer(const Buffer& buffer) {
  return buffer;
}

Stmt StmtMutator::mutate(const Stmt& stmt) {
  if (!stmt) return stmt;
  return dispatch_stmt(stmt);
}

Stmt StmtMutator::visit_stmt(const StoreNode* op, const Stmt& self) {
  return mutate_store(op, self);
}
Stmt StmtMutator::visit_stmt(const LetNode* op, const Stmt& self) {
  return mutate_let(op, self);
}
Stmt StmtMutator::visit_stmt(const ForNode* op, const Stmt& self) {
  return mutate_for(op, self);
}
Stmt StmtMutator::visit_stmt(const IfNode* op, const Stmt& self) {
  return mutate_if(op, self);
}
Stmt StmtMutator::visit_stmt(const WhileNode* op, const Stmt& self) {
  return mutate_while(op, self);
}
Stmt StmtMutator::visit_stmt(const SeqNode* op, const Stmt& self) {
  return mutate_seq(op, self);
}
Stmt StmtMutator::visit_stmt(const AllocateNode* op, const Stmt& self) {
  return mutate_allocate(op, self);
}
Stmt StmtMutator::visit_stmt(const EvaluateNode* op, const Stmt& self) {
  return mutate_evaluate(op, self);
}
Stmt StmtMutator::visit_stmt(const KernelNode* op, const Stmt& self) {
  return mutate_kernel(op, self);
}
Stmt StmtMutator::visit_stmt(const CopyNode* op, const Stmt& self) {
  return mutate_copy(op, self);
}
Stmt StmtMutator::visit_stmt(const FillNode* op, const Stmt& self) {
  return mutate_fill(op, self);
}
Stmt StmtMutator::visit_stmt(const GemmNode* op, const Stmt& self) {
  return mutate_gemm(op, self);
}
Stmt StmtMutator::visit_stmt(const ReduceNode* op, const Stmt& self) {
  return mutate_reduce(op, self);
}
Stmt StmtMutator::visit_stmt(const LaunchNode* op, const Stmt& self) {
  return mutate_launch(op, self);
}

Stmt StmtMutator::mutate_store(const StoreNode* op, const Stmt& self) {
  Buffer buffer = mutate_buffer(op->buffer);
  std::vector<Expr> indices;
  bool changed = mutate_all(op->indices, &indices);
  Expr value = mutate(op->value);
  if (!changed && buffer == op->buffer && value.same_as(op->value)) return self;
  return store(buffer, std::move(indices), value, op->span);
}
Stmt StmtMutator::mutate_let(const LetNode* op, const Stmt& self) {
  Expr value = mutate(op->value);
  Stmt body = mutate(op->body);
  if (value.same_as(op->value) && body.same_as(op->body)) return self;
  auto n = copy_node(op);
  n->value = value;
  n->body = body;
  return Stmt(n);
}
Stmt StmtMutator::mutate_for(const ForNode* op, const Stmt& self) {
  Expr begin = mutate(op->begin), end = mutate(op->end);
  Stmt body = mutate(op->body);
  if (begin.same_as(op->begin) && end.same_as(op->end) && body.same_as(op->body)) return self;
  auto n = copy_node(op);
  n->begin = begin;
  n->end = end;
  n->body = body;
  return Stmt(n);
}
Stmt StmtMutator::mutate_if(const IfNode* op, const Stmt& self) {
  Expr cond = mutate(op->cond);
  Stmt then_case = mutate(op->then_case), else_case = mutate(op->else_case);
  if (cond.same_as(op->cond) && then_case.same_as(op->then_case) &&
      else_case.same_as(op->else_case))
    return self;
  auto n = copy_node(op);
  n->cond = cond;
  n->then_case = then_case;
  n->else_case = else_case;
  return Stmt(n);
}
Stmt StmtMutator::mutate_while(const WhileNode* op, const Stmt& self) {
  Expr cond = mutate(op->cond);
  Stmt body = mutate(op->body);
  if (cond.same_as(op->cond) && body.same_as(op->body)) return self;
  auto n = copy_node(op);
  n->cond = cond;
  n->body = body;
  return Stmt(n);
}
Stmt StmtMutator::mutate_seq(const SeqNode* op, const Stmt& self) {
  std::vector<Stmt> stmts;
  stmts.reserve(op->stmts.size());
  bool changed = false;
  for (const auto& s : op->stmts) {
    stmts.push_back(mutate(s));
    changed |= !stmts.back().same_as(s);
  }
  if (!changed) return self;
  auto n = copy_node(op);
  n->stmts = std::move(stmts);
  return Stmt(n);
}
Stmt StmtMutator::mutate_allocate(const AllocateNode* op, const Stmt& self) {
  Buffer buffer = mutate_buffer(op->buffer);
  std::optional<Expr> init;
  if (op->init) init = mutate(*op->init);
  Stmt body = mutate(op->body);
  bool init_same = !op->init || init->same_as(*op->init);
  if (buffer == op->buffer && init_same && body.same_as(op->body)) return self;
  auto n = copy_node(op);
  n->buffer = buffer;
  n->init = init;
  n->body = body;
  return Stmt(n);
}
Stmt StmtMutator::mutate_evaluate(const EvaluateNode* op, const Stmt& self) {
  Expr value = mutate(op->value);
  if (value.same_as(op->value)) return self;
  auto n = copy_node(op);
  n->value = value;
  return Stmt(n);
}
Stmt StmtMutator::mutate_kernel(const KernelNode* op, const Stmt& self) {
  std::vector<Expr> grid;
  bool changed = mutate_all(op->grid, &grid);
  Stmt body = mutate(op->body);
  if (!changed && body.same_as(op->body)) return self;
  auto n = copy_node(op);
  n->grid = std::move(grid);
  n->body = body;
  return Stmt(n);
}
Stmt StmtMutator::mutate_copy(const CopyNode* op, const Stmt& self) {
  bool changed = false;
  TileRegion src = mutate_region(op->src, &changed);
  TileRegion dst = mutate_region(op->dst, &changed);
  if (!changed) return self;
  auto n = copy_node(op);
  n->src = std::move(src);
  n->dst = std::move(dst);
  return Stmt(n);
}
Stmt StmtMutator::mutate_fill(const FillNode* op, const Stmt& self) {
  bool changed = false;
  TileRegion dst = mutate_region(op->dst, &changed);
  Expr value = mutate(op->value);
  if (!changed && value.same_as(op->value)) return self;
  auto n = copy_node(op);
  n->dst = std::move(dst);
  n->value = value;
  return Stmt(n);
}
Stmt StmtMutator::mutate_gemm(const GemmNode* op, const Stmt& self) {
  bool changed = false;
  TileRegion a = mutate_region(op->a, &changed);
  TileRegion b = mutate_region(op->b, &changed);
  TileRegion c = mutate_region(op->c, &changed);
  if (!changed) return self;
  auto n = copy_node(op);
  n->a = std::move(a);
  n->b = std::move(b);
  n->c = std::move(c);
  return Stmt(n);
}
Stmt StmtMutator::mutate_reduce(const ReduceNode* op, const Stmt& self) {
  Buffer src = mutate_buffer(op->src), dst = mutate_buffer(op->dst);
  if (src == op->src && dst == op->dst) return self;
  auto n = copy_node(op);
  n->src = src;
  n->dst = dst;
  return Stmt(n);
}
Stmt StmtMutator::mutate_launch(const LaunchNode* op, const Stmt& self) {
  std::vector<Expr> grid, args;
  bool changed = mutate_all(op->grid, &grid);
  changed |= mutate_all(op->args, &args);
  if (!changed) return self;
  auto n = copy_node(op);
  n->grid = std::move(grid);
  n->args = std::move(args);
  return Stmt(n);
}
TileRegion StmtMutator::mutate_region(const TileRegion& region, bool* changed) {
  TileRegion out;
  out.buffer = region.buffer ? mutate_buffer(region.buffer) : region.buffer;
  *changed |= out.buffer != region.buffer;
  for (const auto& d : region.dims) {
    RegionDim nd{mutate(d.start), std::nullopt};
    *changed |= !nd.start.same_as(d.start);
    if (d.stop) {
      nd.stop = mutate(*d.stop);
      *changed |= !nd.stop->same_as(*d.stop);
    }
    out.dims.push_back(std::move(nd));
  }
  return out;
}

namespace {

class Substituter : public StmtMutator {
 public:
  explicit Substituter(const VarMap& map) : map_(map) {}

 protected:
  Expr mutate_var(const VarNode* op, const Expr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }
  // A buffer is rebuilt at most once, so all its references keep one identity.
  Buffer mutate_buffer(const Buffer& buffer) override {
    auto [it, inserted] = buffers_.try_emplace(buffer.get(), buffer);
    if (!inserted) return it->second;
    std::vector<Expr> shape, strides;
    bool changed = mutate_all(buffer->shape, &shape);
    changed |= mutate_all(buffer->strides, &strides);
    if (changed) {
      auto node = std::make_shared<BufferNode>(*buffer);
      node->shape = std::move(shape);
      node->strides = std::move(strides);
      it->second = node;
    }
    return it->second;
  }

 private:
  const VarMap& map_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
};

}  // namespace

Expr substitute(const Expr& expr, const VarMap& replacements) {
  if (replacements.empty()) return expr;
  return Substituter(replacements).mutate(expr);
}

Stmt substitute(const Stmt& stmt, const VarMap& replacements) {
  if (replacements.empty()) return stmt;
  return Substituter(replacements).mutate(stmt);
}

}  // namespace tilec::ir
