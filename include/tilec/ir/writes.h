// What one IR node writes by itself, the one definition the interpreter, the checker,
// the cp.async pipeline and the fragment layout pass share. for_each_write(stmt, fn)
// calls fn once per buffer the statement node writes, its children not included (the
// caller's traversal reaches them):
//   store          its element (indices)        what = "assignment"
//   T.copy         the destination region       what = "T.copy destination"
//   T.fill         the destination region       what = "T.fill destination"
//   T.gemm         the accumulator C region     what = "T.gemm accumulator C"
//   T.reduce       the whole destination buffer what = "T.reduce destination"
// and nothing for the other statements. for_each_write(expr, fn) reports the element
// an atomic update (ir::atomic_update) writes, what = "atomic update", and nothing for
// any other expression node. A null buffer (an unfinished tree the checker reports
// elsewhere) is skipped. `what` names the operand in diagnostics.
#pragma once

#include "tilec/ir/stmt.h"

#include <functional>

namespace tilec::ir {

struct Write {
  Buffer buffer;                               // never null
  const TileRegion* region = nullptr;          // copy, fill, gemm: the written region
  const std::vector<Expr>* indices = nullptr;  // store, atomic update: the element
  // Neither region nor indices: the whole buffer (T.reduce's destination).
  const char* what = "";
};
using WriteFn = std::function<void(const Write&)>;

void for_each_write(const Stmt& stmt, const WriteFn& fn);  // undefined: nothing
void for_each_write(const Expr& expr, const WriteFn& fn);  // undefined: nothing
// The same for a node a visitor hook already holds.
void for_each_write(const StoreNode* op, const WriteFn& fn);
void for_each_write(const CopyNode* op, const WriteFn& fn);
void for_each_write(const FillNode* op, const WriteFn& fn);
void for_each_write(const GemmNode* op, const WriteFn& fn);
void for_each_write(const ReduceNode* op, const WriteFn& fn);
void for_each_write(const CallNode* op, const WriteFn& fn);

}  // namespace tilec::ir
