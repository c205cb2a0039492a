// The engine's device-side headers (include/tilec/emu/abi.h and device.h), embedded at
// build time (cmake/embed_text.cmake) so every emulated build writes the very text this
// tilec was built with next to the device source, whatever is installed.
#pragma once

#include <string_view>

namespace tilec::exec::emulator {

std::string_view abi_header_text();
std::string_view device_header_text();

}  // namespace tilec::exec::emulator
