#include "tilec/codegen/text_sections.h"

#include "tilec/ir/expr.h"

#include <fmt/format.h>

namespace tilec::codegen {

namespace {
constexpr std::string_view kSectionMarker = "// @section ";
constexpr std::string_view kDefineMarker = "// @define ";
constexpr std::string_view kEndMarker = "// @end";
}  // namespace

TextSections::TextSections(std::string file, std::string_view text,
                           const std::map<std::string, int64_t>& defines)
    : file_(std::move(file)) {
  std::string* current = nullptr;
  size_t line_number = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    end = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(at, end - at);
    at = end;
    ++line_number;
    std::string_view body = line.substr(0, line.size() - (line.ends_with('\n') ? 1 : 0));
    if (body.starts_with(kSectionMarker)) {
      std::string name(body.substr(kSectionMarker.size()));
      auto [it, fresh] = sections_.emplace(name, std::string());
      if (!fresh)
        throw ir::IRError(
            fmt::format("{}:{}: section '{}' is defined twice", file_, line_number, name));
      current = &it->second;
    } else if (body == kEndMarker) {
      current = nullptr;
    } else if (body.starts_with(kDefineMarker)) {
      std::string macro(body.substr(kDefineMarker.size()));
      auto it = defines.find(macro);
      if (it == defines.end() || current == nullptr)
        throw ir::IRError(fmt::format(
            "{}:{}: '// @define {}' {}; the printer passes the value of each define it allows",
            file_, line_number, macro,
            current == nullptr ? "outside a section" : "has no value from the printer"));
      *current += fmt::format("#define {} {}\n", macro, it->second);
    } else if (current != nullptr) {
      *current += line;
    }
  }
}

const std::string& TextSections::get(const std::string& name) const {
  auto it = sections_.find(name);
  if (it == sections_.end()) {
    std::string known;
    for (const auto& [section, _] : sections_) known += (known.empty() ? "" : ", ") + section;
    throw ir::IRError(
        fmt::format("codegen: {} has no section '{}'; known: {}", file_, name, known));
  }
  return it->second;
}

}  // namespace tilec::codegen
