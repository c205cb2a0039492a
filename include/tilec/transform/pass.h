// Pass: one named IRModule -> IRModule function. A pass sees the target it
// lowers for and the PassContext in effect; it returns a new module (IRModule
// is an immutable value) and reports bad input by throwing.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/target/target.h"
#include "tilec/transform/pass_context.h"

#include <functional>
#include <string>

namespace tilec::transform {

struct PassInfo {
  const target::Target& target;
  const PassContext& context;
};

using PassFunc = std::function<ir::IRModule(const ir::IRModule&, const PassInfo&)>;

struct Pass {
  std::string name;
  PassFunc fn;

  // Runs fn; throws PassError when the pass has no function.
  ir::IRModule operator()(const ir::IRModule& mod, const PassInfo& info) const;
};

}  // namespace tilec::transform
