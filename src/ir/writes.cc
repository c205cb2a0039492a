#include "tilec/ir/writes.h"

#include "tilec/ir/functor.h"

namespace tilec::ir {

namespace {

void region_write(const TileRegion& r, const char* what, const WriteFn& fn) {
  if (r.buffer) fn(Write{r.buffer, &r, nullptr, what});
}

// Every statement kind says what it writes by itself, so a new kind must decide too.
class StmtWrites final : public StmtFunctor<void(const WriteFn&)> {
 private:
  void visit_stmt(const StoreNode* op, const Stmt&, const WriteFn& fn) override {
    for_each_write(op, fn);
  }
  void visit_stmt(const CopyNode* op, const Stmt&, const WriteFn& fn) override {
    for_each_write(op, fn);
  }
  void visit_stmt(const FillNode* op, const Stmt&, const WriteFn& fn) override {
    for_each_write(op, fn);
  }
  void visit_stmt(const GemmNode* op, const Stmt&, const WriteFn& fn) override {
    for_each_write(op, fn);
  }
  void visit_stmt(const ReduceNode* op, const Stmt&, const WriteFn& fn) override {
    for_each_write(op, fn);
  }
  // Control flow and scopes write nothing themselves; their bodies are statements of
  // their own. An evaluate's atomic updates are expressions (for_each_write(expr)).
  void visit_stmt(const LetNode*, const Stmt&, const WriteFn&) override {}
  void visit_stmt(const ForNode*, const Stmt&, const WriteFn&) override {}
  void visit_stmt(const IfNode*, const Stmt&, const WriteFn&) override {}
  void visit_stmt(const WhileNode*, const Stmt&, const WriteFn&) override {}
  void visit_stmt(const SeqNode*, const Stmt&, const WriteFn&) override {}
  void visit_stmt(const AllocateNode*, const Stmt&, const WriteFn&) override {}
  void visit_stmt(const EvaluateNode*, const Stmt&, const WriteFn&) override {}
  void visit_stmt(const KernelNode*, const Stmt&, const WriteFn&) override {}
  void visit_stmt(const LaunchNode*, const Stmt&, const WriteFn&) override {}
};

}  // namespace

void for_each_write(const Stmt& stmt, const WriteFn& fn) {
  if (stmt) StmtWrites().dispatch_stmt(stmt, fn);
}

void for_each_write(const Expr& expr, const WriteFn& fn) {
  if (auto* call = expr.as<CallNode>()) for_each_write(call, fn);
}

void for_each_write(const StoreNode* op, const WriteFn& fn) {
  if (op->buffer) fn(Write{op->buffer, nullptr, &op->indices, "assignment"});
}
void for_each_write(const CopyNode* op, const WriteFn& fn) {
  region_write(op->dst, "T.copy destination", fn);
}
void for_each_write(const FillNode* op, const WriteFn& fn) {
  region_write(op->dst, "T.fill destination", fn);
}
void for_each_write(const GemmNode* op, const WriteFn& fn) {
  region_write(op->c, "T.gemm accumulator C", fn);
}
void for_each_write(const ReduceNode* op, const WriteFn& fn) {
  if (op->dst) fn(Write{op->dst, nullptr, nullptr, "T.reduce destination"});
}
void for_each_write(const CallNode* op, const WriteFn& fn) {
  if (op->call_kind != CallKind::kAtomic || op->args.empty()) return;
  if (auto* element = op->args[0].as<LoadNode>())
    fn(Write{element->buffer, nullptr, &element->indices, "atomic update"});
}

}  // namespace tilec::ir
