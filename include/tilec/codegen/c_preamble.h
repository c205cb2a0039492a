// The C text every generated translation unit starts with: standard includes and,
// on request, helper sections (floor division, float16/bfloat16
// conversion with round-to-nearest-even, aligned heap tiles), whose text is the file
// src/codegen/text/c_helpers.h (embedded at build time). Each section is guarded by a macro so
// host and device code can be concatenated into one translation unit. Public, so a
// dialect that needs the same conversions elsewhere (the emulator's cuda_fp16.h) takes
// this one definition.
#pragma once

#include "tilec/runtime/abi.h"

#include <string>

namespace tilec::codegen {

// TILEC_STATUS_DIVISION_BY_ZERO of the "floordiv" section: what a device function
// returns after an integer division by a non-constant divisor met zero. Defined once, in
// runtime/abi.h; the sections print these values.
inline constexpr int kStatusDivisionByZero = TILEC_STATUS_DIVISION_BY_ZERO;
// TILEC_STATUS_OUT_OF_MEMORY of the "alloc" section: a heap tile's allocation failed.
inline constexpr int kStatusOutOfMemory = TILEC_STATUS_OUT_OF_MEMORY;

const std::string& c_preamble_includes();
// Sections: "floordiv", "f16", "bf16", "f8e4m3", "f8e5m2", "alloc", "ivdep", "atomic",
// "bounds". Throws for an unknown name.
std::string c_preamble_helper(const std::string& name);
// One fixed section of src/codegen/text/c_helpers.h by name (also "includes",
// "kernel_arg", "dlpack", "atomic16", "f8_bits"); throws naming the known ones.
const std::string& c_helper_section(const std::string& name);

}  // namespace tilec::codegen
