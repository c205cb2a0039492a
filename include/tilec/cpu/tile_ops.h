// The cpu module's tile-op implementations (transform/tile_op_impl.h), for every target
// whose kind has the key "cpu" (`c`, `llvm`, and a plugin kind that declares it):
//   cpu.gemm_register_blocked  T.gemm as the register-blocked micro-kernel (constant
//                              shapes it can block; it declines the rest, which the
//                              generic loop nest lowers)
//   cpu.scheduled_loop_serial  T.Pipelined and thread-binding loops as serial loops
//                              (pipelining is a hint here and threads run as loops)
// Both at kBackendTileOpPriority, so they take precedence over the generic ones.
// Pass-config key kGemmFmaConfigKey (bool, default true, registered with the module):
// the micro-kernel accumulates float32/float64 with fused multiply-add (16-bit
// accumulators never: it drifts past their tolerance); false keeps the multiply and the
// add apart, for results bit-identical to the interpreter's.
#pragma once

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

std::optional<ir::Stmt> lower_gemm_register_blocked(const ir::Stmt& gemm,
                                                    const target::Target& target);
std::optional<ir::Stmt> lower_scheduled_loop_serial(const ir::Stmt& loop,
                                                    const target::Target& target);

std::vector<transform::TileOpImpl> cpu_tile_op_impls();

}  // namespace tilec::cpu
