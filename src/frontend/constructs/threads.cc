// Threads and blocks: T.Kernel, T.launch_thread, T.get_block_binding and
// T.get_thread_binding, the warp shuffles, and the warp-level exchanges and early exits
// tilec refuses (docs/semantics.md, "Grid and block bindings" and "Per-thread code").
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

namespace {

// Warp-level exchanges between the threads of a block (votes, warp reductions), and
// T.thread_return: refused on every target, with the portable form to write instead.
const char* const kWarpExchanges[] = {"tvm_thread_allreduce",
                                      "tvm_warp_shuffle",
                                      "tvm_warp_shuffle_down",
                                      "tvm_warp_shuffle_up",
                                      "tvm_warp_activemask",
                                      "warp_reduce_sum",
                                      "warp_reduce_max",
                                      "warp_reduce_min",
                                      "warp_reduce_bitand",
                                      "warp_reduce_bitor",
                                      "any_sync",
                                      "all_sync",
                                      "ballot_sync",
                                      "activemask",
                                      "ballot"};

}  // namespace

std::vector<Construct> thread_constructs() {
  std::vector<Construct> rows = {
      // The grid's extents, then threads= and prelude keywords (kernel.cc).
      {"Kernel", ConstructRole::kWith, {optional("threads"), optional("is_cpu", "False")}},
      {"launch_thread",
       ConstructRole::kStatement,
       {required("thread"), required("extent")},
       &Lowering::lower_launch_thread_statement,
       &Lowering::lower_launch_thread},
      {"get_block_binding",
       ConstructRole::kValue,
       {optional("dim", "0")},
       nullptr,
       &Lowering::lower_binding},
      {"get_thread_binding",
       ConstructRole::kValue,
       {optional("dim", "0")},
       nullptr,
       &Lowering::lower_binding},
  };
  rows.front().variadic = true;
  for (const std::string name : {"shfl_xor", "shfl_down", "shfl_up", "shfl_sync"})
    rows.push_back({name,
                    ConstructRole::kValue,
                    {required("value"), required(name == "shfl_sync" ? "srcLane" : "delta"),
                     optional("width", "32"), optional("mask")},
                    nullptr,
                    &Lowering::lower_warp_shuffle});
  for (const char* name : kWarpExchanges) {
    Construct c{name, ConstructRole::kRefused, {}, nullptr, &Lowering::lower_warp_exchange};
    c.variadic = true;
    rows.push_back(std::move(c));
  }
  Construct exit{
      "thread_return", ConstructRole::kRefused, {}, nullptr, &Lowering::lower_thread_return};
  exit.variadic = true;
  rows.push_back(exit);
  return rows;
}

bool is_warp_exchange_prefix(std::string_view fn) {
  return fn.rfind("shfl", 0) == 0 || fn.rfind("__shfl", 0) == 0;
}

Expr Lowering::lower_warp_exchange(const ConstructCall& c) {
  fail(c.call.span,
       c.spelled +
           " (a warp-level exchange between threads) is not supported yet: the CPU "
           "model runs a block's threads one after another between barriers, and "
           "tilec does not define warp exchanges on it",
       "exchange values through a T.alloc_shared tile with T.sync_threads() between the "
       "writes and the reads, or use T.reduce_* on a fragment");
}

Expr Lowering::lower_thread_return(const ConstructCall& c) {
  fail(c.call.span,
       "T.thread_return is not supported: a thread cannot leave the block early on every "
       "target (the CPU model runs the block's threads in loops split at barriers)",
       "guard the rest of the thread's work with an if on its thread index instead");
}

Expr Lowering::lower_warp_shuffle(const ConstructCall& a) {
  const AstExpr& e = a.call;
  if (!in_kernel_) fail(e.span, a.spelled + " is only meaningful inside a T.Kernel");
  Expr v = expr(*a[0]), lane = expr(*a[1]);
  Expr width = a[2] ? expr(*a[2]) : make_int(32);
  if (a[3]) expr(*a[3]);  // mask: every thread of the block takes part on tilec's targets
  // A shuffle is per-thread code: the kernel's threads are bound.
  for (size_t d = 0; d < kernel_threads_.size(); ++d)
    if (!kernel_thread_vars_[d])
      kernel_thread_vars_[d] = make_var(default_thread_name(d), DataType::Int32(), e.span);
  return guarded(e.span, [&] { return warp_shuffle(a.construct.name, v, lane, width, e.span); });
}

// T.get_block_binding(d) / T.get_thread_binding(d): the kernel's block or thread index
// along axis d.
Expr Lowering::lower_binding(const ConstructCall& a) {
  const AstExpr& e = a.call;
  const std::string& fn = a.construct.name;
  int64_t d = a[0] ? int_arg(*a[0], "dim") : 0;
  if (!in_kernel_) fail(e.span, a.spelled + " is only meaningful inside a T.Kernel");
  // TileLang's launch always has three thread and three block axes; those the
  // T.Kernel does not list have extent 1, so their index is 0.
  size_t listed = fn == "get_thread_binding" ? kernel_threads_.size() : kernel_block_vars_.size();
  if (d >= int64_t(listed) && d < 3) return with_span(make_int(0), e.span);
  if (fn == "get_thread_binding") return thread_var(d, e.span, a.spelled);
  if (d < 0 || d >= int64_t(kernel_block_vars_.size()))
    fail(e.span,
         "the kernel has " + std::to_string(kernel_block_vars_.size()) +
             " grid dimension(s); T.get_block_binding(" + std::to_string(d) +
             ") names none of them",
         "axes 0 to 2 exist (those the T.Kernel does not list have index 0)");
  return kernel_block_vars_[size_t(d)];
}

// T.launch_thread("threadIdx.y", 1) on its own line: checked, binds nothing.
Stmt Lowering::lower_launch_thread_statement(const ConstructCall& c) {
  lower_launch_thread(c);
  return {};
}

}  // namespace tilec::frontend
