#include "kernel_work.h"

#include "tilec/engine/engine_error.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <regex>
#include <sstream>

namespace tilec::cli {
namespace {

// Recursive descent over the expression text.
class Arithmetic {
 public:
  Arithmetic(std::string text, const std::map<std::string, double>& names)
      : text_(std::move(text)), names_(names) {}

  double run() {
    double v = sum();
    skip();
    if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_) + "'");
    return v;
  }

 private:
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(const char* op) {
    skip();
    size_t n = std::char_traits<char>::length(op);
    if (text_.compare(pos_, n, op) != 0) return false;
    // "*" must not eat the first half of "**", nor "/" of "//".
    if ((std::string(op) == "*" || std::string(op) == "/") && pos_ + 1 < text_.size() &&
        text_[pos_ + 1] == op[0])
      return false;
    pos_ += n;
    return true;
  }
  [[noreturn]] void fail(const std::string& why) {
    throw EngineError(fmt::format("work expression '{}': {}", text_, why));
  }
  double sum() {
    double v = product();
    while (true) {
      if (eat("+"))
        v += product();
      else if (eat("-"))
        v -= product();
      else
        return v;
    }
  }
  double product() {
    double v = power();
    while (true) {
      if (eat("//"))
        v = std::floor(v / power());
      else if (eat("%")) {
        double d = power();
        v = v - d * std::floor(v / d);
      } else if (eat("*"))
        v *= power();
      else if (eat("/"))
        v /= power();
      else
        return v;
    }
  }
  double power() {
    double v = unary();
    if (eat("**")) return std::pow(v, power());
    return v;
  }
  double unary() {
    if (eat("-")) return -unary();
    if (eat("(")) {
      double v = sum();
      if (!eat(")")) fail("missing ')'");
      return v;
    }
    skip();
    size_t start = pos_;
    if (pos_ < text_.size() &&
        (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.'))
        ++pos_;
      return std::stod(text_.substr(start, pos_ - start));
    }
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    std::string name = text_.substr(start, pos_ - start);
    if (name.empty()) fail("expected a number or a name at '" + text_.substr(start) + "'");
    auto it = names_.find(name);
    if (it == names_.end()) {
      std::string known;
      for (const auto& [n, v] : names_) known += (known.empty() ? "" : ", ") + n;
      fail(fmt::format("'{}' has no value; give it with -D {}=VALUE (names with values: {})", name,
                       name, known.empty() ? "none" : known));
    }
    return it->second;
  }

  std::string text_;
  const std::map<std::string, double>& names_;
  size_t pos_ = 0;
};

std::string comment(const std::string& source, const char* key) {
  std::regex line(std::string("^\\s*#\\s*") + key + ":\\s*(.+?)\\s*$");
  std::istringstream in(source);
  std::smatch match;
  for (std::string text; std::getline(in, text);)
    if (std::regex_match(text, match, line)) return match[1];
  return "";
}

}  // namespace

double evaluate_arithmetic(const std::string& text, const std::map<std::string, double>& names) {
  return Arithmetic(text, names).run();
}

KernelWork kernel_work(const std::string& source, const std::map<std::string, std::string>& values,
                       const std::string& flops, const std::string& bytes) {
  std::map<std::string, double> names;
  std::regex assignment("\\b([A-Za-z_]\\w*)\\s*(?::\\s*int\\s*)?=\\s*(\\d+)\\b(?![ \\t]*[.\\w])");
  // Code only: comments (`-D M=1024` in a header) name no values.
  std::string code;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) code += line.substr(0, line.find('#')) + "\n";
  for (auto it = std::sregex_iterator(code.begin(), code.end(), assignment);
       it != std::sregex_iterator(); ++it)
    names.emplace((*it)[1], std::stod((*it)[2]));
  for (const auto& [name, value] : values) {
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (end && *end == '\0' && !value.empty()) names[name] = v;
  }
  KernelWork work;
  work.flops_text = flops.empty() ? comment(source, "flops") : flops;
  work.bytes_text = bytes.empty() ? comment(source, "bytes") : bytes;
  if (!work.flops_text.empty()) work.flops = Arithmetic(work.flops_text, names).run();
  if (!work.bytes_text.empty()) work.bytes = Arithmetic(work.bytes_text, names).run();
  return work;
}

}  // namespace tilec::cli
