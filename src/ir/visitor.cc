#include "tilec/ir/visitor.h"

namespace tilec::ir {

ExprVisitor::~ExprVisitor() = default;

void ExprVisitor::visit(const Expr& expr) {
  if (!expr) return;
  dispatch_expr(expr);
}

void ExprVisitor::visit_expr(const IntImmNode* op, const Expr&) {
  visit_int_imm(op);
}
void ExprVisitor::visit_expr(const FloatImmNode* op, const Expr&) {
  visit_float_imm(op);
}
void ExprVisitor::visit_expr(const VarNode* op, const Expr&) {
  visit_var(op);
}
void ExprVisitor::visit_expr(const BinaryNode* op, const Expr&) {
  visit_binary(op);
}
void ExprVisitor::visit_expr(const UnaryNode* op, const Expr&) {
  visit_unary(op);
}
void ExprVisitor::visit_expr(const SelectNode* op, const Expr&) {
  visit_select(op);
}
void ExprVisitor::visit_expr(const CastNode* op, const Expr&) {
  visit_cast(op);
}
void ExprVisitor::visit_expr(const LoadNode* op, const Expr&) {
  visit_load(op);
}
void ExprVisitor::visit_expr(const CallNode* op, const Expr&) {
  visit_call(op);
}

void ExprVisitor::visit_int_imm(const IntImmNode*) {}
void ExprVisitor::visit_float_imm(const FloatImmNode*) {}
void ExprVisitor::visit_var(const VarNode*) {}
void ExprVisitor::visit_binary(const BinaryNode* op) {
  visit(op->a);
  visit(op->b);
}
void ExprVisitor::visit_unary(const UnaryNode* op) {
  visit(op->a);
}
void ExprVisitor::visit_select(const SelectNode* op) {
  visit(op->cond);
  visit(op->true_value);
  visit(op->false_value);
}
void ExprVisitor::visit_cast(const CastNode* op) {
  visit(op->value);
}
void ExprVisitor::visit_load(const LoadNode* op) {
  visit_buffer_use(op->buffer);
  for (const auto& i : op->indices) visit(i);
}
void ExprVisitor::visit_call(const CallNode* op) {
  for (const auto& a : op->args) visit(a);
}
void ExprVisitor::visit_buffer_use(const Buffer&) {}

void StmtVisitor::visit(const Stmt& stmt) {
  if (!stmt) return;
  dispatch_stmt(stmt);
}

void StmtVisitor::visit_stmt(const StoreNode* op, const Stmt&) {
  visit_store(op);
}
void StmtVisitor::visit_stmt(const LetNode* op, const Stmt&) {
  visit_let(op);
}
void StmtVisitor::visit_stmt(const ForNode* op, const Stmt&) {
  visit_for(op);
}
void StmtVisitor::visit_stmt(const IfNode* op, const Stmt&) {
  visit_if(op);
}
void StmtVisitor::visit_stmt(const WhileNode* op, const Stmt&) {
  visit_while(op);
}
void StmtVisitor::visit_stmt(const SeqNode* op, const Stmt&) {
  visit_seq(op);
}
void StmtVisitor::visit_stmt(const AllocateNode* op, const Stmt&) {
  visit_allocate(op);
}
void StmtVisitor::visit_stmt(const EvaluateNode* op, const Stmt&) {
  visit_evaluate(op);
}
void StmtVisitor::visit_stmt(const KernelNode* op, const Stmt&) {
  visit_kernel(op);
}
void StmtVisitor::visit_stmt(const CopyNode* op, const Stmt&) {
  visit_copy(op);
}
void StmtVisitor::visit_stmt(const FillNode* op, const Stmt&) {
  visit_fill(op);
}
void StmtVisitor::visit_stmt(const GemmNode* op, const Stmt&) {
  visit_gemm(op);
}
void StmtVisitor::visit_stmt(const ReduceNode* op, const Stmt&) {
  visit_reduce(op);
}
void StmtVisitor::visit_stmt(const LaunchNode* op, const Stmt&) {
  visit_launch(op);
}

void StmtVisitor::visit_store(const StoreNode* op) {
  visit_buffer_use(op->buffer);
  for (const auto& i : op->indices) visit(i);
  visit(op->value);
}
void StmtVisitor::visit_let(const LetNode* op) {
  visit(op->value);
  visit(op->body);
}
void StmtVisitor::visit_for(const ForNode* op) {
  visit(op->begin);
  visit(op->end);
  visit(op->body);
}
void StmtVisitor::visit_if(const IfNode* op) {
  visit(op->cond);
  visit(op->then_case);
  visit(op->else_case);
}
void StmtVisitor::visit_while(const WhileNode* op) {
  visit(op->cond);
  visit(op->body);
}
void StmtVisitor::visit_seq(const SeqNode* op) {
  for (const auto& s : op->stmts) visit(s);
}
void StmtVisitor::visit_allocate(const AllocateNode* op) {
  visit_buffer_use(op->buffer);
  if (op->init) visit(*op->init);
  visit(op->body);
}
void StmtVisitor::visit_evaluate(const EvaluateNode* op) {
  visit(op->value);
}
void StmtVisitor::visit_kernel(const KernelNode* op) {
  for (const auto& g : op->grid) visit(g);
  visit(op->body);
}
void StmtVisitor::visit_copy(const CopyNode* op) {
  visit_region(op->src);
  visit_region(op->dst);
}
void StmtVisitor::visit_fill(const FillNode* op) {
  visit_region(op->dst);
  visit(op->value);
}
void StmtVisitor::visit_gemm(const GemmNode* op) {
  visit_region(op->a);
  visit_region(op->b);
  visit_region(op->c);
}
void StmtVisitor::visit_reduce(const ReduceNode* op) {
  visit_buffer_use(op->src);
  visit_buffer_use(op->dst);
}
void StmtVisitor::visit_launch(const LaunchNode* op) {
  for (const auto& g : op->grid) visit(g);
  for (const auto& a : op->args) visit(a);
}
void StmtVisitor::visit_region(const TileRegion& region) {
  if (region.buffer) visit_buffer_use(region.buffer);
  for (const auto& d : region.dims) {
    visit(d.start);
    if (d.stop) visit(*d.stop);
  }
}

namespace {

class PostOrder : public StmtVisitor {
 public:
  explicit PostOrder(const std::function<void(const Stmt*, const Expr*)>& fn) : fn_(fn) {}
  void visit(const Expr& expr) override {
    ExprVisitor::visit(expr);
    if (expr) fn_(nullptr, &expr);
  }
  void visit(const Stmt& stmt) override {
    StmtVisitor::visit(stmt);
    if (stmt) fn_(&stmt, nullptr);
  }

 private:
  const std::function<void(const Stmt*, const Expr*)>& fn_;
};

class ExprPostOrder : public ExprVisitor {
 public:
  explicit ExprPostOrder(const std::function<void(const Expr&)>& fn) : fn_(fn) {}
  void visit(const Expr& expr) override {
    ExprVisitor::visit(expr);
    if (expr) fn_(expr);
  }

 private:
  const std::function<void(const Expr&)>& fn_;
};

}  // namespace

void post_order_visit(const Stmt& stmt, const std::function<void(const Stmt*, const Expr*)>& fn) {
  PostOrder(fn).visit(stmt);
}

void post_order_visit(const Expr& expr, const std::function<void(const Expr&)>& fn) {
  ExprPostOrder(fn).visit(expr);
}

}  // namespace tilec::ir
