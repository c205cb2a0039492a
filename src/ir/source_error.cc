#include "tilec/ir/source_error.h"

#include <algorithm>

namespace tilec::ir {

namespace {

std::string render(const std::string& filename, Span span, const std::string& message,
                   const std::string& hint, const std::string& line) {
  std::string out = filename;
  if (span.known()) out += ":" + std::to_string(span.line) + ":" + std::to_string(span.col);
  out += ": error: " + message;
  if (span.known() && !line.empty()) {
    out += "\n" + line + "\n";
    // Keep tabs so the caret lines up under the same column in a terminal.
    int col = std::max(span.col, 1);
    for (int i = 0; i + 1 < col && i < int(line.size()); ++i) out += line[i] == '\t' ? '\t' : ' ';
    out += "^";
  }
  if (!hint.empty()) out += "\nhint: " + hint;
  return out;
}

}  // namespace

SourceError::SourceError(std::string filename, Span span, std::string message, std::string hint,
                         std::string source_line)
    : IRError(render(filename, span, message, hint, source_line)),
      filename_(std::move(filename)),
      span_(span),
      message_(std::move(message)),
      hint_(std::move(hint)),
      source_line_(std::move(source_line)) {}

SourceError make_source_error(const std::string& filename, std::string_view source, Span span,
                              std::string message, std::string hint) {
  std::string line;
  if (span.known()) {
    size_t pos = 0;
    for (int n = 1; n < span.line && pos != std::string_view::npos; ++n) {
      pos = source.find('\n', pos);
      if (pos != std::string_view::npos) ++pos;
    }
    if (pos != std::string_view::npos && pos <= source.size()) {
      size_t end = source.find('\n', pos);
      line = std::string(source.substr(pos, end == std::string_view::npos ? end : end - pos));
      if (!line.empty() && line.back() == '\r') line.pop_back();
    }
  }
  return SourceError(filename, span, std::move(message), std::move(hint), std::move(line));
}

LocatedError::LocatedError(Span span, std::string message, std::string hint)
    : IRError((span.known()
                   ? "line " + std::to_string(span.line) + ":" + std::to_string(span.col) + ": "
                   : std::string()) +
              message + (hint.empty() ? std::string() : "\nhint: " + hint)),
      span_(span),
      message_(std::move(message)),
      hint_(std::move(hint)) {}

SourceError locate(const LocatedError& error, const std::string& filename,
                   std::string_view source) {
  return make_source_error(filename, source, error.span(), error.message(), error.hint());
}

}  // namespace tilec::ir
