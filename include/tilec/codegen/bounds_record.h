// The status channel of the bounds-checked mode (transform/bounds_check.h) between
// the generated host entry and its device function. The host entry of a
// bounds-checked kernel keeps one zeroed TilecBoundsRecord on its stack and passes
// its address as one more TilecKernelArg after the launch arguments; the device
// function takes it as a last parameter. The first block that meets an out-of-range
// index claims the record (atomic 0 -> 1 on `claimed`), writes the message and returns
// kStatusOutOfBounds; every other block returns the same at its next start or
// violation. The host entry, after the launch, fails with the record's message.
// Generated code only: the host ABI (runtime/abi.h) is unchanged.
#pragma once

#include "tilec/ir/bounds_call.h"
#include "tilec/runtime/abi.h"

#include <string>

namespace tilec::codegen {

inline constexpr int kStatusOutOfBounds = TILEC_STATUS_OUT_OF_BOUNDS;  // runtime/abi.h
// struct TilecBoundsRecord { int32_t claimed; int32_t reserved; char message[512]; }
inline constexpr int kBoundsRecordMessageOffset = 8;
inline constexpr int kBoundsRecordMessageBytes = 512;
inline constexpr int kBoundsRecordBytes = kBoundsRecordMessageOffset + kBoundsRecordMessageBytes;
// Name of the device function's record parameter in generated C.
inline constexpr const char* kBoundsRecordParam = "tilec_bounds";

// The printf format of a violation's message, for its indices then its extents as
// long long: "line 12:18: load 'X' at index [%lld] is outside its shape [%lld]; ...",
// the interpreter's words, so that the CLI names the kernel file the same way.
std::string bounds_violation_format(const ir::BoundsCall& violation);

}  // namespace tilec::codegen
