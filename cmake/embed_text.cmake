# cmake -DINPUT=<file> -DOUTPUT=<file.cc> -DNAMESPACE=<ns> -DFUNCTION=<name> -P embed_text.cmake
# Writes a C++ source defining `std::string_view <ns>::<name>()` that returns the
# bytes of INPUT exactly, as a raw string literal, so a text that generated code
# embeds has one source of truth (the file) instead of a pasted copy.
foreach(var INPUT OUTPUT NAMESPACE FUNCTION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_text.cmake: -D${var}=... is required")
  endif()
endforeach()
file(READ "${INPUT}" text)
set(delimiter "tilec_embed")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "embed_text.cmake: ${INPUT} contains ')${delimiter}\"', "
                      "which would end the raw string literal; change the delimiter")
endif()
set(content "// Generated from ${INPUT} by cmake/embed_text.cmake; do not edit.
#include <string_view>

namespace ${NAMESPACE} {

std::string_view ${FUNCTION}() {
  static constexpr std::string_view text = R\"${delimiter}(${text})${delimiter}\";
  return text;
}

}  // namespace ${NAMESPACE}
")
# Rewrite only on change, so an unchanged header does not recompile the source.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
