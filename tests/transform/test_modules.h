// Small IRModules for pass tests: a module with one empty kernel function whose
// module attributes the test passes extend, so a pass's effect is observable.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/ir/stmt.h"

#include <string>

namespace tilec::transform::testing {

inline ir::IRModule one_function_module(const std::string& name = "main") {
  return ir::IRModule({ir::make_prim_func(name, {}, ir::seq({}))});
}

// A pass that appends `tag` to the module's "trace" attribute, recording pass order.
inline ir::IRModule append_trace(const ir::IRModule& mod, const std::string& tag) {
  const ir::AttrValue* trace = mod.attr("trace");
  std::string text = trace ? std::get<std::string>(*trace) + "," + tag : tag;
  return mod.with_attr("trace", text);
}

}  // namespace tilec::transform::testing
