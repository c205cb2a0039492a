// TileLang's `metal_context` host codegen hook, the one hook among its backends: applied
// (through the manifest's host_codegen_hooks, so by apply_host_codegen_hooks /
// BackendContext::preprocess_host_codegen) to the host module before the standard host
// codegens run, for `metal` targets only. It marks every host function that launches on the
// device with codegen::kLaunchContextAttr, saying that its launches take the command
// queue/buffer from the caller's runtime context (TilecRuntimeEnv.stream: the caller's
// MTLCommandBuffer, NULL for the device's default queue) instead of creating their own; the
// `c` host codegen prints the mark as a comment before each device launch, the `llvm` one as
// the launch call's metadata. Host functions that launch nothing on a device are kept as
// they are; the module itself records the mark (the same attribute) in every case.
#pragma once

#include "tilec/backend/host_codegen.h"

namespace tilec::metal {

inline constexpr const char* kMetalContextHookName = "metal_context";
// The text of the mark.
inline constexpr const char* kMetalContextMark =
    "metal_context: the command buffer comes from the caller's runtime context (env->stream), "
    "the entry creates no command queue of its own";

ir::IRModule apply_metal_context(const ir::IRModule& mod, const target::Target& target_host,
                                 const target::Target* target);
// The hook (copies of one object, so registering it again is a no-op).
backend::HostCodegenHook make_metal_context_hook();

}  // namespace tilec::metal
