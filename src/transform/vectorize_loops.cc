#include "tilec/transform/vectorize_loops.h"

#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"

namespace tilec::transform {

using namespace ir;

namespace {

bool contains_loop(const Stmt& s) {
  bool found = false;
  post_order_visit(s, [&](const Stmt* node, const Expr*) {
    if (node && node->kind() == StmtKind::kFor) found = true;
  });
  return found;
}

class LoopVectorizer : public StmtMutator {
 protected:
  Stmt mutate_for(const ForNode* op, const Stmt& self) override {
    Stmt lowered = StmtMutator::mutate_for(op, self);
    if (op->for_kind != ForKind::kParallel) return lowered;
    auto n = copy_node(lowered.as<ForNode>());
    n->for_kind = contains_loop(n->body) ? ForKind::kSerial : ForKind::kVectorized;
    return Stmt(n);
  }
};

}  // namespace

Stmt vectorize_loops(const Stmt& body) {
  return LoopVectorizer().mutate(body);
}

IRModule vectorize_loops(const IRModule& mod) {
  return map_function_bodies(mod, [](const PrimFunc& f) { return vectorize_loops(f->body); });
}

Pass vectorize_loops_pass() {
  return Pass{"tilec.vectorize_loops",
              [](const IRModule& mod, const PassInfo&) { return vectorize_loops(mod); }};
}

}  // namespace tilec::transform
