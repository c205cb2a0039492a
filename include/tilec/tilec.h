// tilec: the umbrella header. Parse or build a kernel (frontend/parser.h,
// ir/builder.h), compile it for a target with tilec::compile, call the Kernel.
// tilec::initialize() registers the built-in backends; compile() calls it.
#pragma once

#include "tilec/backend/module.h"
#include "tilec/engine/bench.h"
#include "tilec/engine/compile.h"
#include "tilec/engine/engine_error.h"
#include "tilec/engine/initialize.h"
#include "tilec/engine/kernel.h"
#include "tilec/engine/kernel_cache.h"
#include "tilec/engine/tuning.h"
#include "tilec/engine/tuning_cache.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/builder.h"
#include "tilec/ir/function.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/tensor.h"
#include "tilec/runtime/dlpack_tensor.h"
#include "tilec/target/target.h"
