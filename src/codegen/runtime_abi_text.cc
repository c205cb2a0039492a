#include "tilec/codegen/runtime_abi_text.h"

#include "tilec/ir/expr.h"

namespace tilec::codegen {

std::string runtime_abi_c_declarations() {
  // The generated source defines DLPack's structs itself (host_codegen_c.cc), so the
  // header's include of DLPack is the one line it cannot keep.
  static const std::string text = [] {
    constexpr std::string_view kDLPackInclude = "#include <dlpack/dlpack.h>\n";
    std::string header(runtime_abi_header_text());
    size_t at = header.find(kDLPackInclude);
    if (at == std::string::npos) {
      throw ir::IRError(
          "c host codegen: runtime/abi.h no longer includes <dlpack/dlpack.h> on a line of its "
          "own; update runtime_abi_c_declarations to match the header");
    }
    header.erase(at, kDLPackInclude.size());
    return "\n" + header;
  }();
  return text;
}

}  // namespace tilec::codegen
