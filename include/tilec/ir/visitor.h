// Read-only traversal of the tile IR. ExprVisitor/StmtVisitor are functors
// (ir/functor.h) that route each node kind to one protected hook; every default hook
// visits every child Expr and Stmt in source order (region starts/stops, indices, grid
// extents, init values included), so a subclass overrides only the nodes it cares about
// and calls the base hook to keep recursing. Buffers are reported through
// visit_buffer_use().
#pragma once

#include "tilec/ir/functor.h"
#include "tilec/ir/stmt.h"

#include <functional>

namespace tilec::ir {

class ExprVisitor : public ExprFunctor<void()> {
 public:
  virtual ~ExprVisitor();
  virtual void visit(const Expr& expr);  // undefined handles are skipped

 protected:
  virtual void visit_int_imm(const IntImmNode* op);
  virtual void visit_float_imm(const FloatImmNode* op);
  virtual void visit_var(const VarNode* op);
  virtual void visit_binary(const BinaryNode* op);
  virtual void visit_unary(const UnaryNode* op);
  virtual void visit_select(const SelectNode* op);
  virtual void visit_cast(const CastNode* op);
  virtual void visit_load(const LoadNode* op);
  virtual void visit_call(const CallNode* op);
  // Called for every reference to a buffer (load, store, tile operand, allocation,
  // reduce operand) before its indices are visited. Default: nothing.
  virtual void visit_buffer_use(const Buffer& buffer);

 private:
  void visit_expr(const IntImmNode* op, const Expr& self) final;
  void visit_expr(const FloatImmNode* op, const Expr& self) final;
  void visit_expr(const VarNode* op, const Expr& self) final;
  void visit_expr(const BinaryNode* op, const Expr& self) final;
  void visit_expr(const UnaryNode* op, const Expr& self) final;
  void visit_expr(const SelectNode* op, const Expr& self) final;
  void visit_expr(const CastNode* op, const Expr& self) final;
  void visit_expr(const LoadNode* op, const Expr& self) final;
  void visit_expr(const CallNode* op, const Expr& self) final;
};

class StmtVisitor : public ExprVisitor, public StmtFunctor<void()> {
 public:
  using ExprVisitor::visit;
  virtual void visit(const Stmt& stmt);  // undefined handles are skipped

 protected:
  virtual void visit_store(const StoreNode* op);
  virtual void visit_let(const LetNode* op);
  virtual void visit_for(const ForNode* op);
  virtual void visit_if(const IfNode* op);
  virtual void visit_while(const WhileNode* op);
  virtual void visit_seq(const SeqNode* op);
  virtual void visit_allocate(const AllocateNode* op);
  virtual void visit_evaluate(const EvaluateNode* op);
  virtual void visit_kernel(const KernelNode* op);
  virtual void visit_copy(const CopyNode* op);
  virtual void visit_fill(const FillNode* op);
  virtual void visit_gemm(const GemmNode* op);
  virtual void visit_reduce(const ReduceNode* op);
  virtual void visit_launch(const LaunchNode* op);
  // A tile operand: visit_buffer_use(buffer), then every start and stop.
  virtual void visit_region(const TileRegion& region);

 private:
  void visit_stmt(const StoreNode* op, const Stmt& self) final;
  void visit_stmt(const LetNode* op, const Stmt& self) final;
  void visit_stmt(const ForNode* op, const Stmt& self) final;
  void visit_stmt(const IfNode* op, const Stmt& self) final;
  void visit_stmt(const WhileNode* op, const Stmt& self) final;
  void visit_stmt(const SeqNode* op, const Stmt& self) final;
  void visit_stmt(const AllocateNode* op, const Stmt& self) final;
  void visit_stmt(const EvaluateNode* op, const Stmt& self) final;
  void visit_stmt(const KernelNode* op, const Stmt& self) final;
  void visit_stmt(const CopyNode* op, const Stmt& self) final;
  void visit_stmt(const FillNode* op, const Stmt& self) final;
  void visit_stmt(const GemmNode* op, const Stmt& self) final;
  void visit_stmt(const ReduceNode* op, const Stmt& self) final;
  void visit_stmt(const LaunchNode* op, const Stmt& self) final;
};

// Calls fn once per node of `stmt` after its children (post order). Exactly one of
// the two pointers is non-null.
void post_order_visit(const Stmt& stmt, const std::function<void(const Stmt*, const Expr*)>& fn);
void post_order_visit(const Expr& expr, const std::function<void(const Expr&)>& fn);

}  // namespace tilec::ir
