// Rewriting traversal of the tile IR, built on the functors of ir/functor.h. One
// protected hook per node kind; each default rebuilds its node only when a child
// changed and otherwise returns `self`, so an identity mutation shares the whole input
// tree. Binding variables (let, for, kernel block vars) are definitions and are never
// mutated by the defaults.
// substitute() replaces variables; buffers whose shape or strides mention a replaced
// variable are rebuilt once and every reference inside the statement uses the rebuild.
#pragma once

#include "tilec/ir/functor.h"
#include "tilec/ir/stmt.h"

#include <unordered_map>

namespace tilec::ir {

class ExprMutator : public ExprFunctor<Expr()> {
 public:
  virtual ~ExprMutator();
  virtual Expr mutate(const Expr& expr);  // undefined stays undefined

 protected:
  virtual Expr mutate_int_imm(const IntImmNode* op, const Expr& self);
  virtual Expr mutate_float_imm(const FloatImmNode* op, const Expr& self);
  virtual Expr mutate_var(const VarNode* op, const Expr& self);
  virtual Expr mutate_binary(const BinaryNode* op, const Expr& self);
  virtual Expr mutate_unary(const UnaryNode* op, const Expr& self);
  virtual Expr mutate_select(const SelectNode* op, const Expr& self);
  virtual Expr mutate_cast(const CastNode* op, const Expr& self);
  virtual Expr mutate_load(const LoadNode* op, const Expr& self);
  virtual Expr mutate_call(const CallNode* op, const Expr& self);
  // Every buffer reference goes through here (loads, stores, tile operands,
  // allocations). Default: the same buffer.
  virtual Buffer mutate_buffer(const Buffer& buffer);
  // Mutates each element; returns true when any changed.
  bool mutate_all(const std::vector<Expr>& in, std::vector<Expr>* out);

 private:
  Expr visit_expr(const IntImmNode* op, const Expr& self) final;
  Expr visit_expr(const FloatImmNode* op, const Expr& self) final;
  Expr visit_expr(const VarNode* op, const Expr& self) final;
  Expr visit_expr(const BinaryNode* op, const Expr& self) final;
  Expr visit_expr(const UnaryNode* op, const Expr& self) final;
  Expr visit_expr(const SelectNode* op, const Expr& self) final;
  Expr visit_expr(const CastNode* op, const Expr& self) final;
  Expr visit_expr(const LoadNode* op, const Expr& self) final;
  Expr visit_expr(const CallNode* op, const Expr& self) final;
};

class StmtMutator : public ExprMutator, public StmtFunctor<Stmt()> {
 public:
  using ExprMutator::mutate;
  virtual Stmt mutate(const Stmt& stmt);  // undefined stays undefined

 protected:
  virtual Stmt mutate_store(const StoreNode* op, const Stmt& self);
  virtual Stmt mutate_let(const LetNode* op, const Stmt& self);
  virtual Stmt mutate_for(const ForNode* op, const Stmt& self);
  virtual Stmt mutate_if(const IfNode* op, const Stmt& self);
  virtual Stmt mutate_while(const WhileNode* op, const Stmt& self);
  virtual Stmt mutate_seq(const SeqNode* op, const Stmt& self);
  virtual Stmt mutate_allocate(const AllocateNode* op, const Stmt& self);
  virtual Stmt mutate_evaluate(const EvaluateNode* op, const Stmt& self);
  virtual Stmt mutate_kernel(const KernelNode* op, const Stmt& self);
  virtual Stmt mutate_copy(const CopyNode* op, const Stmt& self);
  virtual Stmt mutate_fill(const FillNode* op, const Stmt& self);
  virtual Stmt mutate_gemm(const GemmNode* op, const Stmt& self);
  virtual Stmt mutate_reduce(const ReduceNode* op, const Stmt& self);
  virtual Stmt mutate_launch(const LaunchNode* op, const Stmt& self);
  // Buffer through mutate_buffer(), starts/stops through mutate(); sets *changed
  // when anything differs from `region`.
  virtual TileRegion mutate_region(const TileRegion& region, bool* changed);

 private:
  Stmt visit_stmt(const StoreNode* op, const Stmt& self) final;
  Stmt visit_stmt(const LetNode* op, const Stmt& self) final;
  Stmt visit_stmt(const ForNode* op, const Stmt& self) final;
  Stmt visit_stmt(const IfNode* op, const Stmt& self) final;
  Stmt visit_stmt(const WhileNode* op, const Stmt& self) final;
  Stmt visit_stmt(const SeqNode* op, const Stmt& self) final;
  Stmt visit_stmt(const AllocateNode* op, const Stmt& self) final;
  Stmt visit_stmt(const EvaluateNode* op, const Stmt& self) final;
  Stmt visit_stmt(const KernelNode* op, const Stmt& self) final;
  Stmt visit_stmt(const CopyNode* op, const Stmt& self) final;
  Stmt visit_stmt(const FillNode* op, const Stmt& self) final;
  Stmt visit_stmt(const GemmNode* op, const Stmt& self) final;
  Stmt visit_stmt(const ReduceNode* op, const Stmt& self) final;
  Stmt visit_stmt(const LaunchNode* op, const Stmt& self) final;
};

using VarMap = std::unordered_map<const VarNode*, Expr>;
Expr substitute(const Expr& expr, const VarMap& replacements);
Stmt substitute(const Stmt& stmt, const VarMap& replacements);

}  // namespace tilec::ir
