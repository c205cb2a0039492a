#include "tilec/metal/metal_context.h"

#include "tilec/codegen/host_codegen_c.h"
#include "tilec/transform/split_host_device.h"

namespace tilec::metal {

ir::IRModule apply_metal_context(const ir::IRModule& mod, const target::Target&,
                                 const target::Target*) {
  // The module records the mark too, so the hook shows even where nothing launches.
  ir::IRModule out = mod.with_attr(codegen::kLaunchContextAttr, std::string(kMetalContextMark));
  for (const auto& func : mod.functions()) {
    if (!transform::launches_on_device(func)) continue;
    out = out.with_function(
        ir::with_attr(func, codegen::kLaunchContextAttr, std::string(kMetalContextMark)));
  }
  return out;
}

backend::HostCodegenHook make_metal_context_hook() {
  static const backend::HostCodegenHook hook{kMetalContextHookName, &apply_metal_context,
                                             std::nullopt};
  return hook;
}

}  // namespace tilec::metal
