// flatten_buffers: turns every multi-dimensional buffer access into a 1-D access
// with row-major strides (symbolic dims allowed). Function parameters keep their
// N-D buffers for argument checking; the body refers to a 1-D buffer of the same
// name and scope. Index arithmetic is int64, down to the integer bindings it is
// built from, when a global buffer may exceed 2^31 elements (index_width.h).
// local.var scalars are left alone.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

namespace tilec::transform {

ir::PrimFunc flatten_buffers(const ir::PrimFunc& func);
ir::IRModule flatten_buffers(const ir::IRModule& mod);
Pass flatten_buffers_pass();  // "tilec.flatten_buffers"

}  // namespace tilec::transform
