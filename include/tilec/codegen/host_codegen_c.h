// The standard `c` host codegen, shared by every target backend whose host is C.
// Per host PrimFunc (attr tilec.function_kind = "host") it emits the entry of
// runtime/abi.h: argument checks (count, kind, dtype, ndim, constant dims, symbolic
// dims bound from the first tensor and checked on later ones, contiguity, the
// device type from attr tilec.device_type, non-NULL data), then the LaunchNode as
// env->parallel_for over blocks (see c_launch_abi.h). Device backends that launch
// differently (CUDA, OpenCL, ...) rewrite LaunchNode through a host-codegen hook
// before this codegen runs. The output is self-contained C (DLPack v0.6 layout
// embedded) and defines tilec_abi_version() once.
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/backend/host_codegen.h"
#include "tilec/ir/function.h"
#include "tilec/target/target.h"

namespace tilec::codegen {

// String attribute of a host function, set by a host-codegen hook (the metal backend's
// metal_context): the runtime context its device launches take their queue/command buffer
// from. Each device launch of the function prints it as a comment before the launch, so the
// host code shows the mark; the launch passes env->stream (the caller's) either way.
inline constexpr const char* kLaunchContextAttr = "tilec.launch_context";

backend::CodeArtifact generate_c_host(const ir::IRModule& mod, const target::Target& target_host);
// The standard host codegen, name "c": copies of one object, so every manifest declaring
// it holds the same callable and registering it again is a no-op.
backend::HostCodegen make_c_host_codegen();

}  // namespace tilec::codegen
