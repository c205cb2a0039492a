// One error format for every subcommand: each error is printed once as
// "tilec: error: file:line:col: message" (followed by the source line, a caret and
// a hint when the error carries them). Library errors come in four shapes — a
// SourceError ("file:line:col: error: message"), an interpreter error that knows
// only its place in the kernel ("line L:C: message"), the same from a compiled
// kernel's call ("kernel 'name': line L:C: message", the bounds-checked build), and
// plain messages — and are
// rewritten here into that one shape, so no message repeats its prefix.
#pragma once

#include <exception>
#include <string>

namespace tilec::cli {

// The kernel file the running subcommand reads ("" before one is known); errors
// that carry only a line and column are attributed to it.
void set_current_kernel_file(const std::string& file);
const std::string& current_kernel_file();

// `what` rewritten into the one CLI format, ending without a newline.
std::string format_cli_error(const std::string& what);

// An exception in the CLI format. Errors that know their place in the kernel but not
// the file (ir::LocatedError, transform::LocatedPassError: the lowering passes) are
// attributed to the current kernel file and shown with its source line and a caret.
std::string format_cli_error(const std::exception& error);

}  // namespace tilec::cli
