// Helper text that generated code embeds, kept in real per-dialect source files
// (src/<backend>/text/*, embedded at build time by tilec_embed_text) instead of C++ raw
// strings, so the text is compiled on its own in a test and an error points at its file
// and line. A file is split into named sections, each the lines after a
// `// @section NAME` line up to the next such line or a `// @end` line (text outside
// sections, such as comments saying why, is not printed). A `// @define MACRO` line inside a
// section is printed as `#define MACRO <value>` with the value from the C++ constant the printer
// passes (runtime/abi.h's status codes), so a number is defined once and the file still
// compiles alone (the marker is a comment there).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tilec::codegen {

class TextSections {
 public:
  // `file` names the source file in error messages; `defines` are the values of the
  // `// @define` markers the file may use. Throws ir::IRError on a duplicated section or an
  // unknown define.
  TextSections(std::string file, std::string_view text,
               const std::map<std::string, int64_t>& defines = {});
  // The section's text; throws ir::IRError naming the known sections when absent.
  const std::string& get(const std::string& name) const;
  bool has(const std::string& name) const { return sections_.count(name) != 0; }

 private:
  std::string file_;
  std::map<std::string, std::string> sections_;
};

}  // namespace tilec::codegen
