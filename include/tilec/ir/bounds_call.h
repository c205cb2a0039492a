// The two calls of the compiled bounds-checked mode (transform/bounds_check.h), each
// the whole value of an Evaluate statement, like a barrier:
// - bounds_violation(access, buffer, indices, span): "element `indices` of `buffer` is
//   outside its shape". The device function records this first violation of the
//   launch (span, access, buffer name, every index and every extent) for the host
//   entry to report and returns at once, without touching the element. The pass
//   puts it under an `if` that tests the indices; in-range ones never reach it.
// - bounds_stop_if_failed(): at the start of each block; returns at once when
//   another block of the launch already recorded a violation.
// Both are int32 CallNodes of kind kExtern whose names ("tilec.bounds.load.<buffer>",
// "tilec.bounds.store.<buffer>", "tilec.bounds.stop") are not C identifiers, so no
// T.call_extern can spell them; args: the indices then the extents, all int64. Every
// consumer recognises them with as_bounds_call() before treating a call as extern.
#pragma once

#include "tilec/ir/stmt.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec::ir {

enum class BoundsAccess { kLoad, kStore };

Expr bounds_violation(BoundsAccess access, const Buffer& buffer, const std::vector<Expr>& indices,
                      Span span);
Expr bounds_stop_if_failed(Span span = {});

// A decoded bounds call.
struct BoundsCall {
  bool stop = false;  // bounds_stop_if_failed()
  BoundsAccess access = BoundsAccess::kLoad;
  std::string buffer;
  std::vector<Expr> indices, shape;  // int64; empty for stop
  Span span;
};
// The bounds call that `e` is, else nullopt.
std::optional<BoundsCall> as_bounds_call(const Expr& e);

}  // namespace tilec::ir
