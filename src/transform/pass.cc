#include "tilec/transform/pass.h"

#include <fmt/format.h>

namespace tilec::transform {

ir::IRModule Pass::operator()(const ir::IRModule& mod, const PassInfo& info) const {
  if (!fn) throw PassError("pass '" + name + "' has no function to run");
  return fn(mod, info);
}

ir::IRModule map_function_bodies(const ir::IRModule& mod,
                                 const std::function<ir::Stmt(const ir::PrimFunc&)>& rewrite) {
  ir::IRModule out = mod;
  for (const auto& f : mod.functions()) {
    ir::Stmt body;
    try {
      body = rewrite(f);
    } catch (const ir::IRError& e) {
      throw ir::IRError(fmt::format("in function '{}': {}", f->name, e.what()));
    }
    if (!body.same_as(f->body)) out = out.with_function(ir::with_body(f, body));
  }
  return out;
}

}  // namespace tilec::transform
