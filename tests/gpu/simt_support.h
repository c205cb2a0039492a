// Kernels for the SIMT lowering tests: parsed from DSL text, lowered for an opencl-like target
// (cl_test, tests/support/test_target_kinds.h) by the first passes of the SIMT pipeline, with
// helpers to look at the result.
#pragma once

#include "tilec/frontend/parser.h"
#include "tilec/gpu/lower_simt.h"
#include "tilec/gpu/plan_barriers.h"
#include "tilec/gpu/simt_tile_ops.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/visitor.h"
#include "tilec/target/target.h"
#include "tilec/transform/simplify.h"

#include <gtest/gtest.h>

#include <string>

namespace tilec::testing {

// The SIMT tile-op implementations, as a GPU backend module registers them (registering
// the same ones again is a no-op).
inline void register_simt_tile_ops() {
  for (auto& impl : gpu::simt_tile_op_impls()) transform::register_tile_op_impl(impl);
}

inline ir::IRModule lower_for_simt(const std::string& source,
                                   const std::string& target = "cl_test") {
  register_simt_tile_ops();
  ir::IRModule mod = ir::parse_kernel_source(source);
  target::Target t = target::Target::parse(target);
  mod = gpu::lower_simt(mod, t);
  mod = transform::simplify(mod);
  return gpu::plan_barriers(mod);
}

inline int count_barriers(const ir::Stmt& s) {
  int n = 0;
  ir::post_order_visit(s, [&](const ir::Stmt* st, const ir::Expr*) {
    if (auto* e = st ? st->as<ir::EvaluateNode>() : nullptr; e && ir::as_barrier(e->value)) ++n;
  });
  return n;
}

inline std::string layout_of(const ir::IRModule& mod, const std::string& fragment) {
  const auto& f = mod.functions().front();
  auto it = f->attrs.find(std::string(gpu::kLayoutAttrPrefix) + fragment);
  if (it == f->attrs.end()) return "";
  return std::get<std::string>(it->second);
}

}  // namespace tilec::testing
