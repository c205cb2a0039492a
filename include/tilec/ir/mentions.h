// Whether an expression mentions a variable anywhere (loop and lane analyses ask it of
// indices and bounds).
#pragma once

#include "tilec/ir/expr.h"

namespace tilec::ir {

bool mentions(const Expr& expr, const VarNode* var);

}  // namespace tilec::ir
