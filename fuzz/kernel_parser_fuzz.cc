// libFuzzer target for the kernel-file front end. Rejecting input with a
// SourceError/IRError is the expected outcome for garbage; a crash, a hang, any other
// exception, or a parsed module whose printed form does not parse back is a finding.
#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  tilec::ir::IRModule module;
  try {
    module = tilec::ir::parse_kernel_source(source);
  } catch (const tilec::ir::IRError&) {
    return 0;
  }
  std::string printed = tilec::ir::print(module);
  try {
    tilec::ir::parse_kernel_source(printed);
  } catch (const tilec::ir::IRError& e) {
    std::fprintf(stderr, "printed form does not parse back:\n%s\n%s\n", printed.c_str(), e.what());
    std::abort();
  }
  return 0;
}
