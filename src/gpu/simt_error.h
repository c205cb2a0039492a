// Errors of the SIMT lowering: "kernel 'f': message", raised as ir::LocatedError
// when the construct's place in the source is known, so the CLI prints it like a
// front-end error (file:line:col, the source line and a caret).
#pragma once

#include "tilec/ir/source_error.h"

#include <string>

namespace tilec::gpu {

[[noreturn]] inline void simt_error(const std::string& function, const ir::Span& span,
                                    const std::string& message) {
  std::string text = "kernel '" + function + "': " + message;
  if (span.known()) throw ir::LocatedError(span, text);
  throw ir::IRError(text);
}

}  // namespace tilec::gpu
