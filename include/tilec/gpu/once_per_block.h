// Block-level side effects on SIMT targets. In block-level code (docs/semantics.md: a
// kernel without per-thread code, outside the T.Parallel nests the lowering splits over
// the threads) every statement means "once per block", but every thread of the block
// executes it. That is harmless for what each thread keeps to itself (a let, a register)
// and for a plain store of a value all threads agree on, which lower_simt already leaves
// to thread 0; it is wrong for an atomic update, which would be applied once per thread.
// These helpers give such an update to one thread: as a statement it is guarded by
// `tid == 0`; where its value (return_prev=True) is needed by every thread, thread 0
// performs it into a one-element shared tile that every thread then reads, with the
// barrier between them left to plan_barriers (a shared write by one thread, read by the
// others, is the hazard it plans for).
#pragma once

#include "tilec/ir/stmt.h"

namespace tilec::gpu {

// Whether evaluating `e` performs an atomic update (ir::atomic_update) anywhere in it.
bool performs_atomic(const ir::Expr& e);

// `s` run by thread `tid` == 0 only.
ir::Stmt on_thread_zero(ir::Stmt s, const ir::Var& tid, ir::Span span);

// `let var = value in body` where thread 0 alone evaluates `value` (which performs an
// atomic update) and every thread binds `var` to the result, read from a one-element
// shared tile named after `var`.
ir::Stmt let_from_thread_zero(const ir::Var& var, ir::Expr value, ir::Stmt body, const ir::Var& tid,
                              ir::Span span);

}  // namespace tilec::gpu
