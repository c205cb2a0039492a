// Value-returning functors over the tile IR: the one place that dispatches on a node's
// kind. ExprFunctor<R(Args...)> maps a defined Expr (plus Args) to an R through one
// hook per node kind, StmtFunctor<R(Args...)> the same for statements:
//
//   struct Depth : ExprFunctor<int()> {
//     int visit_expr(const IntImmNode*, const Expr&) override { return 1; }
//     int visit_expr(const BinaryNode* op, const Expr&) override {
//       return 1 + std::max(dispatch_expr(op->a), dispatch_expr(op->b));
//     }
//     ...  // one override per expression kind
//   };
//
// Contract: every hook is pure virtual, so a functor that does not handle some kind is
// an abstract class and cannot be instantiated; adding a node kind is thus a compile
// error at every functor until it handles the new kind (and at the switch below, which
// has no default and is compiled with -Wswitch as an error). Hooks receive the node and
// the handle it came from (`self`, for rebuilding or reporting). dispatch_* takes a
// defined handle; callers decide what an undefined one means. Expression and statement
// hooks have distinct names (visit_expr / visit_stmt) so a class may derive from both.
// ExprVisitor/StmtVisitor and ExprMutator/StmtMutator are built on these.
#pragma once

#include "tilec/ir/stmt.h"

namespace tilec::ir {

#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"

template <class FType>
class ExprFunctor;

template <class R, class... Args>
class ExprFunctor<R(Args...)> {
 public:
  virtual ~ExprFunctor() = default;

  R dispatch_expr(const Expr& e, Args... args) {
    switch (e.kind()) {
      case ExprKind::kIntImm:
        return visit_expr(static_cast<const IntImmNode*>(e.get()), e, args...);
      case ExprKind::kFloatImm:
        return visit_expr(static_cast<const FloatImmNode*>(e.get()), e, args...);
      case ExprKind::kVar:
        return visit_expr(static_cast<const VarNode*>(e.get()), e, args...);
      case ExprKind::kBinary:
        return visit_expr(static_cast<const BinaryNode*>(e.get()), e, args...);
      case ExprKind::kUnary:
        return visit_expr(static_cast<const UnaryNode*>(e.get()), e, args...);
      case ExprKind::kSelect:
        return visit_expr(static_cast<const SelectNode*>(e.get()), e, args...);
      case ExprKind::kCast:
        return visit_expr(static_cast<const CastNode*>(e.get()), e, args...);
      case ExprKind::kLoad:
        return visit_expr(static_cast<const LoadNode*>(e.get()), e, args...);
      case ExprKind::kCall:
        return visit_expr(static_cast<const CallNode*>(e.get()), e, args...);
    }
    throw IRError("expression of unknown kind " + std::to_string(int(e.kind())));
  }

 protected:
  virtual R visit_expr(const IntImmNode* op, const Expr& self, Args... args) = 0;
  virtual R visit_expr(const FloatImmNode* op, const Expr& self, Args... args) = 0;
  virtual R visit_expr(const VarNode* op, const Expr& self, Args... args) = 0;
  virtual R visit_expr(const BinaryNode* op, const Expr& self, Args... args) = 0;
  virtual R visit_expr(const UnaryNode* op, const Expr& self, Args... args) = 0;
  virtual R visit_expr(const SelectNode* op, const Expr& self, Args... args) = 0;
  virtual R visit_expr(const CastNode* op, const Expr& self, Args... args) = 0;
  virtual R visit_expr(const LoadNode* op, const Expr& self, Args... args) = 0;
  virtual R visit_expr(const CallNode* op, const Expr& self, Args... args) = 0;
};

template <class FType>
class StmtFunctor;

template <class R, class... Args>
class StmtFunctor<R(Args...)> {
 public:
  virtual ~StmtFunctor() = default;

  R dispatch_stmt(const Stmt& s, Args... args) {
    switch (s.kind()) {
      case StmtKind::kStore:
        return visit_stmt(static_cast<const StoreNode*>(s.get()), s, args...);
      case StmtKind::kLet:
        return visit_stmt(static_cast<const LetNode*>(s.get()), s, args...);
      case StmtKind::kFor:
        return visit_stmt(static_cast<const ForNode*>(s.get()), s, args...);
      case StmtKind::kIf:
        return visit_stmt(static_cast<const IfNode*>(s.get()), s, args...);
      case StmtKind::kSeq:
        return visit_stmt(static_cast<const SeqNode*>(s.get()), s, args...);
      case StmtKind::kAllocate:
        return visit_stmt(static_cast<const AllocateNode*>(s.get()), s, args...);
      case StmtKind::kEvaluate:
        return visit_stmt(static_cast<const EvaluateNode*>(s.get()), s, args...);
      case StmtKind::kKernel:
        return visit_stmt(static_cast<const KernelNode*>(s.get()), s, args...);
      case StmtKind::kCopy:
        return visit_stmt(static_cast<const CopyNode*>(s.get()), s, args...);
      case StmtKind::kFill:
        return visit_stmt(static_cast<const FillNode*>(s.get()), s, args...);
      case StmtKind::kGemm:
        return visit_stmt(static_cast<const GemmNode*>(s.get()), s, args...);
      case StmtKind::kReduce:
        return visit_stmt(static_cast<const ReduceNode*>(s.get()), s, args...);
      case StmtKind::kLaunch:
        return visit_stmt(static_cast<const LaunchNode*>(s.get()), s, args...);
      case StmtKind::kWhile:
        return visit_stmt(static_cast<const WhileNode*>(s.get()), s, args...);
    }
    throw IRError("statement of unknown kind " + std::to_string(int(s.kind())));
  }

 protected:
  virtual R visit_stmt(const StoreNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const LetNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const ForNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const WhileNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const IfNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const SeqNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const AllocateNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const EvaluateNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const KernelNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const CopyNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const FillNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const GemmNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const ReduceNode* op, const Stmt& self, Args... args) = 0;
  virtual R visit_stmt(const LaunchNode* op, const Stmt& self, Args... args) = 0;
};

#pragma GCC diagnostic pop

}  // namespace tilec::ir
