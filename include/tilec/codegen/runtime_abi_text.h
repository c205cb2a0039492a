// The text of include/tilec/runtime/abi.h, byte for byte, generated into the build
// from the header (cmake/embed_text.cmake): the C host codegen embeds it in every
// kernel library, so generated code and runtime share one definition of the ABI.
#pragma once

#include <string>
#include <string_view>

namespace tilec::codegen {

// The header exactly as it is in the source tree.
std::string_view runtime_abi_header_text();
// The header as generated C embeds it: its `#include <dlpack/dlpack.h>` line is
// removed, since the generated source defines the DLPack structs itself.
std::string runtime_abi_c_declarations();
// include/tilec/runtime/device_resident.inc exactly: the placement check of a device
// kernel's tensors, which the runtime compiles too (tilec_rt_device_resident).
std::string_view device_resident_c_text();
// include/tilec/runtime/host_arg_checks.inc exactly (its section "checks" is what the C
// host codegen embeds; the runtime compiles the same file).
std::string_view host_arg_checks_c_text();

}  // namespace tilec::codegen
