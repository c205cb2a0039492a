#include "tilec/transform/pass.h"

namespace tilec::transform {

ir::IRModule Pass::operator()(const ir::IRModule& mod, const PassInfo& info) const {
  if (!fn) throw PassError("pass '" + name + "' has no function to run");
  return fn(mod, info);
}

}  // namespace tilec::transform
