// bounds_check: the compiled bounds-checked mode (pass config `tilec.bounds_check`,
// `tilec run --bounds-check`). Runs on lowered loops while every access still has one
// index per dimension, so a violation can name them all: before each statement that
// reads or writes an element of a buffer (any scope but local.var), it inserts
//     if (not (0 <= i0 < extent0 and ...)) evaluate(bounds_violation(...))
// (ir::bounds_violation: record file position, access, buffer, index and shape, and
// leave the device function) in the order the statement evaluates its accesses, so
// an index that itself reads memory (X[I[i]]) is checked first. A load that only runs
// on one side of if_then_else / and / or is checked only under that side's condition.
// Each block starts with ir::bounds_stop_if_failed(), so after the first violation
// the other blocks of the launch stop. Checks that integer bounds prove are removed by
// the simplify pass that follows. Marks every function it rewrote with
// kBoundsCheckedAttr, which split_host_device passes on to the device function: the
// codegens then give the device function its violation record and the host entry
// the report (codegen/bounds_record.h). Without the key (or with false) the pass
// changes nothing.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

namespace tilec::transform {

inline constexpr const char* kBoundsCheckConfigKey = "tilec.bounds_check";
inline constexpr const char* kBoundsCheckedAttr = "tilec.bounds_checked";  // bool true

// Declares kBoundsCheckConfigKey (bool, default false); idempotent.
void register_bounds_check_config_key();
// Whether `context` asks for bounds checks (false when the key was never declared).
bool bounds_check_enabled(const PassContext& context);
// Whether a lowered function carries kBoundsCheckedAttr.
bool is_bounds_checked(const ir::PrimFunc& func);

ir::PrimFunc insert_bounds_checks(const ir::PrimFunc& func);
Pass bounds_check_pass();  // "tilec.bounds_check"

}  // namespace tilec::transform
