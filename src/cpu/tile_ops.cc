#include "tilec/cpu/tile_ops.h"

#include "tilec/cpu/fuse_row_loops.h"
#include "tilec/cpu/prefetch.h"
#include "tilec/cpu/reuse_invariant_copies.h"
#include "tilec/transform/pass_context.h"

#include <string_view>

namespace tilec::cpu {

using namespace ir;

bool is_cpu_target(const target::Target& target) {
  return target.has_key("cpu");
}

std::optional<Stmt> lower_scheduled_loop_serial(const Stmt& loop, const target::Target&) {
  auto n = copy_node(loop.as<ForNode>());
  n->for_kind = ForKind::kSerial;
  n->num_stages = 0;
  n->thread_tag.clear();
  return Stmt(n);
}

void register_cpu_pass_config_keys() {
  transform::register_pass_config_key(
      kGemmFmaConfigKey, transform::PassConfigType::kBool, true,
      "cpu T.gemm micro-kernel: accumulate with fused multiply-add (docs/semantics.md allows "
      "it; results within the per-dtype tolerances); false: a separate multiply and add per "
      "step, bit-identical to the interpreter");
  transform::register_pass_config_key(
      kPrefetchConfigKey, transform::PassConfigType::kBool, true,
      "cpu T.Pipelined loops: prefetch the cache lines the next iteration's copies from "
      "global tensors read, spread over the gemm's micro-kernel loops (results unchanged). "
      "On the float32 GEMM 1024^3 (bench/bench_kernels.cc, Zen 3, 1 thread) it took c from "
      "0.53x to 0.68x OpenBLAS and llvm from 0.61x to 0.76x; false: no prefetch");
  transform::register_pass_config_key(
      kReuseInvariantCopiesConfigKey, transform::PassConfigType::kBool, true,
      "cpu: compute a K loop's tiles that do not depend on one block coordinate once per "
      "task and reuse them in the task's next blocks (cpu/reuse_invariant_copies.h; "
      "results unchanged); false: every block copies and packs its own");
  transform::register_pass_config_key(
      kFuseRowLoopsConfigKey, transform::PassConfigType::kBool, true,
      "cpu: fuse consecutive loops over a block's tile rows into one, so each row stays in "
      "L1 across the kernel's passes over it (cpu/fuse_row_loops.h; results unchanged); "
      "false: every loop walks the whole tile");
  for (const char* key : {kGemmMicroRowsConfigKey, kGemmMicroGroupsConfigKey}) {
    bool rows = std::string_view(key) == kGemmMicroRowsConfigKey;
    transform::register_pass_config_key(
        key, transform::PassConfigType::kInt, int64_t(0),
        rows ? "cpu T.gemm micro-kernel: rows of C per block (0: derived from the target's "
               "vector registers)"
             : "cpu T.gemm micro-kernel: vectors of C columns per block (0: derived from the "
               "target's vector registers)");
  }
}

std::vector<transform::TileOpImpl> cpu_tile_op_impls() {
  using transform::TileOpKind;
  return {
      {"cpu.gemm_register_blocked", TileOpKind::kGemm, is_cpu_target,
       transform::kBackendTileOpPriority, lower_gemm_register_blocked},
      {"cpu.reduce_vectorized", TileOpKind::kReduce, is_cpu_target,
       transform::kBackendTileOpPriority, lower_reduce_vectorized},
      {"cpu.scheduled_loop_serial", TileOpKind::kScheduledLoop, is_cpu_target,
       transform::kBackendTileOpPriority, lower_scheduled_loop_serial},
  };
}

}  // namespace tilec::cpu
