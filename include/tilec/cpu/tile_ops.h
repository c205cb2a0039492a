// The cpu module's tile-op implementations (transform/tile_op_impl.h), for every target
// whose kind has the key "cpu" (`c`, `llvm`, and a plugin kind that declares it):
//   cpu.gemm_register_blocked  T.gemm as register-blocked micro-kernels, for every shape
//   cpu.reduce_vectorized      T.reduce_* along a row with vector accumulators
//   cpu.scheduled_loop_serial  T.Pipelined and thread-binding loops as serial loops
//                              (pipelining is a hint here and threads run as loops)
// All at kBackendTileOpPriority, so they take precedence over the generic ones.
//
// The gemm (gemm_microkernel.cc). C is computed in blocks of rows x (groups x lanes)
// elements, sized to the target's vector registers (gemm_blocking.h): for each lane j of
// a vectorized loop, the block's rows x groups accumulators sit in a small tile indexed
// only by constants across the whole k loop, so both codegens keep them in registers (the
// C compiler by outer-loop vectorization of the j loop, the LLVM codegen as explicit
// vectors); per k a step broadcasts one element of A per row and reads one vector of B
// per group. Rows and columns the block does not divide get remainder blocks (fewer
// rows, fewer groups, a narrower vector), constant or symbolic extents alike, never the
// plain loop nest.
// Packing. On the tile model the kernel's T.copy global -> shared already is the packing
// step: it leaves each tile contiguous, in a buffer only this block uses, so the
// micro-kernel reads A and B where they are (A's rows are broadcast, B's rows read as
// vectors; a transposed A is read the other way round). The gemm packs a copy only where
// the micro-kernel could not read vectors of B or would convert in its inner loop: a
// transposed B, and operands of another dtype than C (16-bit inputs with a float32
// accumulator) are copied, converted once, into a k x columns panel (and A into a block of
// acc dtype). Leaving the shared tiles' layout alone keeps every other use of them
// (copies out, element reads, other gemms, edges) correct as the interpreter sees it.
// Cache sizes (cpu_resources.h) bound the k chunk (B's panel within half of L1) and, for
// large or symbolic shapes, chunks of rows and columns, in Goto's loop order.
// Pass-config keys (registered with the module): kGemmFmaConfigKey (bool, default true):
// accumulate float32/float64 with fused multiply-add (16-bit accumulators never: it drifts
// past their tolerance); false keeps the multiply and the add apart, for results
// bit-identical to the interpreter's. cpu.gemm_micro_rows / cpu.gemm_micro_groups (int,
// default 0: derived from the target) fix the block shape.
#pragma once

#include "tilec/cpu/gemm_blocking.h"
#include "tilec/ir/stmt.h"
#include "tilec/target/target.h"
#include "tilec/transform/tile_op_impl.h"

#include <optional>
#include <vector>

namespace tilec::cpu {

inline constexpr const char* kGemmFmaConfigKey = "cpu.gemm_fma";

bool is_cpu_target(const target::Target& target);  // the kind has the key "cpu"
// Declares kGemmFmaConfigKey (idempotent).
void register_cpu_pass_config_keys();

// The block shape for a C of `acc` dtype and M x N (nullopt: symbolic) on `target`,
// after the pass-config overrides.
MicroKernelShape micro_kernel_for(const target::Target& target, ir::DataType acc,
                                  std::optional<int64_t> M, std::optional<int64_t> N);

std::optional<ir::Stmt> lower_gemm_register_blocked(const ir::Stmt& gemm,
                                                    const target::Target& target);
// T.reduce_* over the innermost dimension of a row whose length is a constant of at least
// one vector: partial results in several vector accumulators (part[l] takes elements l,
// l + width, ...), folded pairwise, then the remainder; float sums thus add in another
// order than the interpreter (docs/semantics.md allows it), max/min are exact. Other
// reduces (an outer dimension, symbolic or short rows, 16-bit floats): nullopt, the
// generic nest.
std::optional<ir::Stmt> lower_reduce_vectorized(const ir::Stmt& reduce,
                                                const target::Target& target);
std::optional<ir::Stmt> lower_scheduled_loop_serial(const ir::Stmt& loop,
                                                    const target::Target& target);

std::vector<transform::TileOpImpl> cpu_tile_op_impls();

}  // namespace tilec::cpu
