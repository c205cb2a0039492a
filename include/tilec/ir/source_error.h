// SourceError: an IRError tied to a place in kernel source. what() reads
// "file:line:col: error: message", then the source line, a caret under the column
// and, when known, "hint: what is supported instead". Errors without a location
// (e.g. a bad -D define) omit the line and the caret.
#pragma once

#include "tilec/ir/expr.h"

#include <string>
#include <string_view>

namespace tilec::ir {

class SourceError : public IRError {
 public:
  SourceError(std::string filename, Span span, std::string message, std::string hint,
              std::string source_line);

  const std::string& filename() const { return filename_; }
  Span span() const { return span_; }
  const std::string& message() const { return message_; }
  const std::string& hint() const { return hint_; }
  const std::string& source_line() const { return source_line_; }

 private:
  std::string filename_;
  Span span_;
  std::string message_;
  std::string hint_;
  std::string source_line_;
};

// Builds a SourceError whose source line is taken from `source` at span.line.
SourceError make_source_error(const std::string& filename, std::string_view source, Span span,
                              std::string message, std::string hint = "");

// LocatedError: an error at a known place in kernel source, raised by code that
// sees IR rather than files (the lowering passes). what() reads "line L:C: message"
// (then "hint: ..." when there is one); whoever knows the file turns it into a
// SourceError with locate(), so it prints like a front-end error.
class LocatedError : public IRError {
 public:
  LocatedError(Span span, std::string message, std::string hint = "");

  Span span() const { return span_; }
  const std::string& message() const { return message_; }
  const std::string& hint() const { return hint_; }

 private:
  Span span_;
  std::string message_;
  std::string hint_;
};

// `error` as a SourceError of `filename`, its source line taken from `source`.
SourceError locate(const LocatedError& error, const std::string& filename, std::string_view source);

}  // namespace tilec::ir
