// Synchronisation: barriers between a block's threads (T.sync_threads, T.sync_warp), the
// grid-wide T.sync_global, and TVM's printed forms T.tvm_storage_sync and T.evaluate.
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

std::vector<Construct> synchronisation_constructs() {
  // barrier_id / arrive_count name a hardware barrier and how many threads it waits
  // for; on tilec's targets every thread of the block takes part in every barrier.
  Construct storage_sync{"tvm_storage_sync",
                         ConstructRole::kStatement,
                         {required("scope")},
                         &Lowering::lower_evaluate_value,
                         &Lowering::lower_storage_sync};
  storage_sync.positional_only = true;
  return {
      {"sync_threads",
       ConstructRole::kStatement,
       {optional("barrier_id"), optional("arrive_count")},
       &Lowering::lower_barrier},
      {"sync_warp", ConstructRole::kStatement, {optional("mask")}, &Lowering::lower_barrier},
      {"sync_global", ConstructRole::kStatement, {}, &Lowering::lower_barrier},
      storage_sync,
      {"evaluate", ConstructRole::kStatement, {required("value")}, &Lowering::lower_evaluate},
  };
}

Stmt Lowering::lower_barrier(const ConstructCall& c) {
  StorageScope scope =
      c.construct.name == "sync_global" ? StorageScope::kGlobal : StorageScope::kShared;
  return evaluate(barrier(scope, c.call.span), c.span);
}

// T.tvm_storage_sync("shared"): the printed form of a barrier.
Expr Lowering::lower_storage_sync(const ConstructCall& c) {
  std::optional<StorageScope> scope;
  if (c[0]->kind == AstKind::kString) scope = parse_storage_scope(c[0]->name);
  if (!scope)
    fail(c.call.span, "T.tvm_storage_sync takes the scope it orders as a string",
         "write T.evaluate(T.tvm_storage_sync(\"shared\")) or (\"global\")");
  return guarded(c.call.span, [&] { return barrier(*scope, c.call.span); });
}

// A value construct called on its own line: T.tvm_storage_sync("shared").
Stmt Lowering::lower_evaluate_value(const ConstructCall& c) {
  return evaluate((this->*c.construct.value)(c), c.span);
}

Stmt Lowering::lower_evaluate(const ConstructCall& c) {
  return evaluate(expr(*c[0]), c.span);
}

}  // namespace tilec::frontend
