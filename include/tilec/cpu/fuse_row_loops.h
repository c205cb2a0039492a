// cpu.fuse_row_loops: consecutive loops over the rows of a block's tiles become one loop,
// so that each row stays in L1 across the kernel's passes over it. A softmax block of
// 16 rows of 1024 floats holds a 64 KiB fragment: as written, the copy in, the row max,
// the exponentials, the row sum, the division and the copy out each stream the whole
// fragment through L2; fused, one 4 KiB row goes through all six while it is in L1.
// Loops fuse when they run from 0 to the same constant extent (serial or parallel, no
// pipelining or thread binding), hold no tile op, call or side effect, and every buffer
// one of them writes is either indexed by the loop's variable in its first dimension in
// every access of the group (each iteration owns a row: no iteration of one loop reads
// what another iteration of another wrote) or used by that loop alone. Only groups where
// a tile written by one loop is read by another fuse (the reuse the fusion is for).
// Results are unchanged: the same operations in each row, in the same order.
// Pass-config key kFuseRowLoopsConfigKey (bool, default true): false leaves the loops.
#pragma once

#include "tilec/ir/stmt.h"
#include "tilec/transform/pass.h"

namespace tilec::cpu {

inline constexpr const char* kFuseRowLoopsConfigKey = "cpu.fuse_row_loops";

ir::Stmt fuse_row_loops(const ir::Stmt& body);
transform::Pass fuse_row_loops_pass();  // "cpu.fuse_row_loops"

}  // namespace tilec::cpu
