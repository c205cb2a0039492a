// Batched execution of innermost T.Parallel loops in the reference interpreter.
//
// docs/semantics.md makes the iterations of a T.Parallel nest independent, so its
// innermost loop may run statement by statement over up to kBatchLanes iterations at a
// time: each expression of the body is evaluated as a column of values (one per
// iteration, or one value for all when it does not depend on the loop), with no virtual
// call per element. The results, the errors (out-of-bounds index, read before write,
// division by zero: the same text as the scalar form) and the order of stores within
// one statement are those of the scalar loop. `if`, `T.if_then_else` and `and`/`or`
// evaluate a branch only on the iterations that take it, as the scalar loop does.
#pragma once

#include "interp_program.h"

#include <functional>
#include <utility>

namespace tilec::interp {

// The interpreter runs tile IR: its code names the IR's types unqualified.
using namespace ::tilec::ir;

// What the batched form needs from the interpreter's compiler.
struct BatchHooks {
  // Compiles an expression that uses no variable of the batched loop (evaluated once
  // per batch, at the point the scalar loop would evaluate it).
  std::function<CExprPtr(const Expr&)> scalar_expr;
  // The slot and facts of a buffer in scope, or the scalar compiler's error.
  std::function<std::pair<int, const BufferInfo*>(const Buffer&, Span)> buffer;
};

// The loop as a batched statement, or null when its body holds a construct only the
// scalar form runs (a nested loop, an allocation, a tile operation, an atomic, a
// barrier, an extern call, ...).
CStmtPtr make_batched_loop(const ForNode& loop, Span span, BatchHooks& hooks);

}  // namespace tilec::interp
