#include "tilec/ir/mentions.h"

#include "tilec/ir/visitor.h"

namespace tilec::ir {

bool mentions(const Expr& expr, const VarNode* var) {
  bool found = false;
  post_order_visit(expr, [&](const Expr& x) { found = found || x.get() == var; });
  return found;
}

}  // namespace tilec::ir
