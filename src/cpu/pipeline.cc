#include "tilec/cpu/pipeline.h"

#include "tilec/cpu/fuse_row_loops.h"
#include "tilec/cpu/prefetch.h"
#include "tilec/cpu/reuse_invariant_copies.h"
#include "tilec/cpu/transpose_tile.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/bounds_check.h"
#include "tilec/transform/flatten_buffers.h"
#include "tilec/transform/lower_tile_ops.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/vectorize_loops.h"
#include "tilec/transform/work_item_loops.h"

#include <unordered_set>

namespace tilec::cpu {

using namespace ir;

namespace {

constexpr int64_t kDLCPU = 1;

bool mentions_any(const Expr& e, const std::unordered_set<const VarNode*>& vars) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) {
    if (auto* v = x.as<VarNode>(); v && vars.count(v)) found = true;
  });
  return found;
}

// A leading allocation can serve every block of a task when nothing about it
// depends on the block (blocks start with uninitialised tiles anyway).
bool hoistable(const AllocateNode* a, const std::unordered_set<const VarNode*>& block_vars) {
  if (a->init) return false;
  for (const auto& d : a->buffer->shape)
    if (mentions_any(d, block_vars)) return false;
  return true;
}

}  // namespace

transform::DeviceKernelBody bind_blocks_to_task_range(const KernelNode& kernel) {
  Var begin = make_var("block_begin", DataType::Int64());
  Var end = make_var("block_end", DataType::Int64());
  Var block = make_var("block", DataType::Int64());
  std::unordered_set<const VarNode*> block_vars;
  for (const auto& v : kernel.block_vars) block_vars.insert(v.get());

  std::vector<const AllocateNode*> hoisted;
  Stmt inner = kernel.body;
  while (auto* a = inner.as<AllocateNode>()) {
    if (!hoistable(a, block_vars)) break;
    hoisted.push_back(a);
    inner = a->body;
  }
  // Block (x, y, z) of the flattened index, x fastest.
  Expr rest = block;
  std::vector<std::pair<Var, Expr>> coords;
  for (size_t d = 0; d < kernel.block_vars.size(); ++d) {
    const Var& v = kernel.block_vars[d];
    Expr extent = cast(DataType::Int64(), kernel.grid[d]);
    bool last = d + 1 == kernel.block_vars.size();
    Expr coord = last ? rest : floormod(rest, extent);
    coords.emplace_back(v, cast(v.dtype(), transform::simplify(coord)));
    if (!last) rest = floordiv(rest, extent);
  }
  // reuse_invariant_copies asks whether this is the task's first block.
  Stmt body = bind_first_block_of_task(inner, eq(block, begin));
  for (size_t d = coords.size(); d-- > 0;) body = let(coords[d].first, coords[d].second, body);
  body = for_loop(block, begin, end, body);
  for (size_t i = hoisted.size(); i-- > 0;) body = allocate(hoisted[i]->buffer, body);
  return {{Param{begin, nullptr}, Param{end, nullptr}}, body};
}

transform::PassPipeline make_cpu_pipeline() {
  transform::SplitHostDeviceOptions split{kDLCPU, bind_blocks_to_task_range};
  return transform::PassPipeline(
      "cpu", {transform::work_item_loops_pass(), prefetch_pipelined_copies_pass(),
              transform::lower_tile_ops_pass(), spread_prefetches_pass(),
              reuse_invariant_copies_pass(), transpose_copies_pass(), transform::simplify_pass(),
              fuse_row_loops_pass(), transform::bounds_check_pass(),
              transform::flatten_buffers_pass(), transform::simplify_pass(),
              transform::vectorize_loops_pass(), transform::split_host_device_pass(split)});
}

}  // namespace tilec::cpu
