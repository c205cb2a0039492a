// transform.lower_warp_shuffles: the meaning of T.shfl_* (ir/warp_shuffle.h) on every
// target, as an exchange through shared memory: a statement that shuffles becomes
//   X[tid] = value;  barrier;  <the statement, reading X[source lane]>;  barrier
// with one shared exchange tile X of the block's thread count per shuffle. The CPU model
// (transform::work_item_loops) splits the block's threads at those barriers; the SIMT
// targets execute them as real barriers. A shuffle therefore has a barrier's rules: it
// must be reached by every thread of the block (not under a thread-dependent condition).
#pragma once

#include "tilec/ir/stmt.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace tilec::transform {

struct LoweredShuffles {
  ir::Stmt body;
  std::vector<ir::Buffer> exchange;  // shared tiles the caller allocates around `body`
  // The barriers this inserted, to the shuffle they come from ("T.shfl_xor at line 12"),
  // so a misplaced shuffle is reported as one.
  std::unordered_map<const ir::ExprNode*, std::string> origins;
};

// `body` is the inside of a kernel's thread-binding nest, `thread_vars`/`threads` its
// indices and extents. Throws IRError (line:col, kernel name) for a shuffle nested in a
// shuffle or in a loop bound or if condition.
LoweredShuffles lower_warp_shuffles(const ir::Stmt& body, const std::vector<ir::Var>& thread_vars,
                                    const std::vector<int64_t>& threads,
                                    const std::string& function);

// Throws IRError when `kernel` shuffles without per-thread code to give lanes a meaning.
void reject_shuffles_without_threads(const ir::KernelNode& kernel, const std::string& function);

}  // namespace tilec::transform
