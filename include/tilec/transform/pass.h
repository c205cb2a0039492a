// Pass: one named IRModule -> IRModule function. A pass sees the target it
// lowers for and the PassContext in effect; it returns a new module (IRModule
// is an immutable value) and reports bad input by throwing.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/target/callable_identity.h"
#include "tilec/target/target.h"
#include "tilec/transform/pass_context.h"

#include <functional>
#include <string>

namespace tilec::transform {

struct PassInfo {
  const target::Target& target;
  const PassContext& context;
};

// Shared by copies and compared by identity (target/callable_identity.h), so a
// manifest's pipeline is the same declaration only with the very same pass objects.
using PassFunc = target::SharedFunction<ir::IRModule(const ir::IRModule&, const PassInfo&)>;

struct Pass {
  std::string name;
  PassFunc fn;

  // Runs fn; throws PassError when the pass has no function.
  ir::IRModule operator()(const ir::IRModule& mod, const PassInfo& info) const;
};

// The loop every per-function pass shares: each function's body is replaced by
// rewrite(function); a function whose body comes back as the same node is kept as it
// is (so an unchanged module stays the same functions). An ir::IRError thrown by
// rewrite is re-thrown naming the function it was raised in.
ir::IRModule map_function_bodies(const ir::IRModule& mod,
                                 const std::function<ir::Stmt(const ir::PrimFunc&)>& rewrite);

}  // namespace tilec::transform
