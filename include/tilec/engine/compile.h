// tilec::compile: ARCHITECTURE.md's flow through one BackendContext — check, lower, split
// host/device by attr "tilec.function_kind", device codegen, host hooks + codegen, then the
// execution backend's build and load — with the kernel cache in front of codegen/build.
#pragma once

#include "tilec/engine/engine_error.h"
#include "tilec/engine/kernel.h"
#include "tilec/ir/function.h"
#include "tilec/transform/pass_context.h"

#include <optional>
#include <string>
#include <string_view>

namespace tilec {

using transform::PassConfig;

// target "auto" resolves through the target detectors (cpu/c here); target_host
// none: the target's host, else the default host; execution_backend "auto": the
// target backend's first available one. pass_config is applied on top of the
// current transform::PassContext for this compilation and is part of the cache key.
Kernel compile(const ir::IRModule& mod, std::string_view target = "auto",
               std::optional<std::string> target_host = std::nullopt,
               std::string_view execution_backend = "auto", PassConfig pass_config = {});

// The version baked into cache keys (CMake's PROJECT_VERSION).
const char* version();

}  // namespace tilec
